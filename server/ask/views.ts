/** Rows of ask_thread / ask_message as every watcher sees them (server/shared/ask.ts). */
import { forgePersonName } from "../shared/forge-people.ts";
import { z } from "zod";
import type { AskMessage as AskMessageRow, AskThread as AskThreadRow, Db } from "../db/client.ts";
import {
  askToolCallSchema,
  citationSchema,
  searchHitSchema,
  type AnswerStatus,
  type AskMessage,
  type AskThread,
} from "../shared/ask.ts";
import { projectRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";

/** What ask_message.details holds. */
export const detailsSchema = z.object({
  toolCalls: z.array(askToolCallSchema).default([]),
  citations: z.array(citationSchema).default([]),
  hits: z.array(searchHitSchema).default([]),
  notes: z.array(z.string()).default([]),
});
export type Details = z.infer<typeof detailsSchema>;

export function parseDetails(text: string | null): Details {
  if (!text) return detailsSchema.parse({});
  try {
    return detailsSchema.parse(JSON.parse(text));
  } catch {
    return detailsSchema.parse({});
  }
}

export async function userNames(db: Db, ids: (string | null | undefined)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  if (!wanted.length) return new Map();
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

const person = (id: string, names: Map<string, string>) => ({
  id,
  name: names.get(id) ?? forgePersonName(id) ?? "A former member",
});

export function messageView(m: AskMessageRow, threadUid: string, names: Map<string, string>): AskMessage {
  const d = parseDetails(m.details);
  const answered = m.kind === "answer" && (m.inputTokens > 0 || m.outputTokens > 0 || m.costUsd !== null);
  return {
    id: m.uid,
    threadId: threadUid,
    kind: m.kind === "question" ? "question" : "answer",
    author: m.authorId ? person(m.authorId, names) : null,
    body: m.body,
    status: m.status as AnswerStatus,
    mode: m.mode === "model" || m.mode === "search" ? m.mode : null,
    toolCalls: d.toolCalls,
    citations: d.citations,
    hits: d.hits,
    usage: answered
      ? { inputTokens: m.inputTokens, outputTokens: m.outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }
      : null,
    costUsd: m.costUsd,
    model: m.model,
    error: m.error,
    notes: d.notes,
    createdAt: m.createdAt.toISOString(),
    finishedAt: m.finishedAt?.toISOString() ?? null,
    chatMessageId: m.chatMessageUid,
  };
}

export type ThreadRow = AskThreadRow & { project: { uid: string }; review: { uid: string } | null };

export const threadInclude = { project: { select: { uid: true } }, review: { select: { uid: true } } } as const;

/** A thread's own columns (what is written), without the uids of its project and review. */
export function pickThread(t: ThreadRow): AskThreadRow {
  const { project: _p, review: _r, ...row } = t;
  return row;
}

/**
 * The room a thread's answers stream into: its review's, else its project's. Typed as a project room
 * because both kinds carry the same ask.* events and those are all that is published into it here.
 */
export function roomOf(t: ThreadRow): RoomName<"project"> {
  return (t.review ? reviewRoom(t.review.uid) : projectRoom(t.project.uid)) as RoomName<"project">;
}

export function threadView(t: ThreadRow, snapshotUid: string, names: Map<string, string>): AskThread {
  return {
    id: t.uid,
    projectUid: t.project.uid,
    reviewUid: t.review?.uid ?? null,
    fingerprint: t.fingerprint,
    snapshotUid,
    title: t.title,
    room: roomOf(t),
    createdBy: person(t.createdById, names),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

export async function snapshotUids(db: Db, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.snapshot.findMany({
    where: { id: { in: [...new Set(ids)] } },
    select: { id: true, uid: true },
  });
  return new Map(rows.map((s) => [s.id, s.uid]));
}

/** A thread's title: its first question's first line, shortened. */
export function titleOf(question: string): string {
  const line = question.trim().split("\n")[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 77)}…` : line;
}
