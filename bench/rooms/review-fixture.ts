/**
 * A big finished agent review written straight to the database, for the review-page bench: its
 * report, N findings (spread over severities, categories and files) and M events in its room — an
 * agent's transcript (status, tool calls and results, token frames, usage), as the room log holds it.
 */
import type { Db } from "../../server/db/client.ts";
import { sampleInput } from "../../server/review/export/testing.ts";
import { CATEGORIES, SEVERITIES } from "../../server/shared/findings.ts";
import type { RoomEventBody } from "../../server/shared/room-events.ts";
import { roomName } from "../../server/shared/rooms.ts";

export interface BigReview {
  uid: string;
  /** The fingerprint of the first finding in the list's default order (most severe first). */
  firstFingerprint: string;
}

function transcriptEvent(i: number): RoomEventBody<"review"> {
  const iteration = Math.floor(i / 10);
  const path = `src/module-${iteration % 300}/file-${iteration % 7}.ts`;
  switch (i % 10) {
    case 0:
      return { type: "status", payload: { phase: "exploring", message: `Iteration ${iteration}: reading`, iteration } };
    case 4:
    case 7:
      return {
        type: "tool_call",
        payload: { id: `c${i}`, name: "read_file", input: { path, start: 1, end: 80 }, iteration },
      };
    case 5:
    case 8:
      return {
        type: "tool_result",
        payload: {
          id: `c${i - 1}`,
          name: "read_file",
          isError: false,
          preview: "export function x() {}\n".repeat(20),
          chars: 4800,
          durationMs: 3,
        },
      };
    case 9:
      return {
        type: "usage",
        payload: {
          usage: {
            inputTokens: 1200 * iteration,
            outputTokens: 90 * iteration,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
          },
          requests: iteration + 1,
        },
      };
    default:
      return {
        type: "token",
        payload: { text: `Looking at ${path} for the ${i}th time; nothing odd yet. `, phase: "exploring" },
      };
  }
}

export async function createBigReview(
  db: Db,
  workspaceId: string,
  opts: { findings: number; events: number },
): Promise<BigReview> {
  const project = await db.project.create({ data: { uid: crypto.randomUUID(), workspaceId, name: "Bench monorepo" } });
  const snapshot = await db.snapshot.create({
    data: {
      uid: crypto.randomUUID(),
      projectId: project.id,
      sourceKind: "zip",
      sourceLabel: "bench.zip",
      status: "ready",
    },
  });
  const { report } = sampleInput({ findings: [] });
  const review = await db.review.create({
    data: {
      uid: crypto.randomUUID(),
      workspaceId,
      projectId: project.id,
      snapshotId: snapshot.id,
      engine: "agent",
      status: "completed",
      scope: JSON.stringify({ kind: "project" }),
      budget: "{}",
      settings: "{}",
      progress: 1,
      report: JSON.stringify({ ...report, findings: [] }),
      findingsCount: opts.findings,
      startedAt: new Date(Date.now() - 3_600_000),
      finishedAt: new Date(),
    },
  });
  const findings = Array.from({ length: opts.findings }, (_, i) => ({
    reviewId: review.id,
    projectId: project.id,
    fingerprint: `bench-${String(i).padStart(5, "0")}`,
    title: `Finding ${i}: input reaches a sink without a check`,
    severity: SEVERITIES[i % SEVERITIES.length]!,
    confidence: 0.5 + (i % 50) / 100,
    category: CATEGORIES[i % CATEGORIES.length]!,
    file: `src/module-${i % 300}/file-${i % 7}.ts`,
    startLine: 1 + (i % 400),
    endLine: 3 + (i % 400),
    evidence: "const q = `SELECT * FROM t WHERE id = ${id}`;",
    explanation: `The value flows from the request into the query (case ${i}).`,
    suggestedFix: "Bind the value as a parameter.",
  }));
  for (let i = 0; i < findings.length; i += 500)
    await db.reviewFinding.createMany({ data: findings.slice(i, i + 500) });
  const room = roomName("review", review.uid);
  const start = Date.now() - 3_600_000;
  const rows = Array.from({ length: opts.events }, (_, i) => {
    const body = transcriptEvent(i);
    return {
      room,
      seq: i + 1,
      type: body.type,
      payload: JSON.stringify(body.payload),
      createdAt: new Date(start + i * 150),
    };
  });
  for (let i = 0; i < rows.length; i += 1000) await db.roomEvent.createMany({ data: rows.slice(i, i + 1000) });
  // The default order is most severe first, then most confident: the first finding is the top one.
  const first = [...findings].sort(
    (a, b) =>
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      b.confidence - a.confidence ||
      a.file.localeCompare(b.file) ||
      a.startLine - b.startLine,
  )[0]!;
  return { uid: review.uid, firstFingerprint: first.fingerprint };
}
