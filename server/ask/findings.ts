/**
 * "Answer → finding": a finding written from an answer, saved on a review of the project (it shows
 * in that review's findings, source "team") or on the project's "team findings" list. The lines are
 * checked against the code of where it is saved — the review's snapshot, or the thread's — the way a
 * model's finding is (server/agent/locate.ts): they must exist, and the evidence becomes their text.
 */
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import { isUniqueViolation, type Db } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import { locateEvidence, fingerprint, Sandbox } from "../agent/index.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { categorySchema, severitySchema } from "../shared/findings.ts";
import { draftFinding, staticLineFinding, type LineFinding } from "./draft.ts";
import { parseDetails, snapshotUids, userNames } from "./views.ts";

const uid = z.uuid();

export const draftInput = z.object({
  answerUid: uid,
  /** The part of the answer the reader selected; the whole answer without it. */
  selection: z.string().max(20_000).optional(),
});

export const saveFindingInput = z
  .object({
    answerUid: uid,
    target: z.enum(["review", "team"]),
    reviewUid: uid.optional(),
    title: z.string().trim().min(1, "Give the finding a title.").max(200),
    severity: severitySchema,
    category: categorySchema,
    file: z.string().trim().min(1, "Name the file.").max(4096),
    startLine: z.number().int().positive(),
    endLine: z.number().int().positive(),
    explanation: z.string().trim().min(1, "Say what is wrong.").max(20_000),
  })
  .refine((v) => v.endLine >= v.startLine, { message: "the last line comes at or after the first", path: ["endLine"] })
  .refine((v) => v.target !== "review" || v.reviewUid, {
    message: "name the review to save it on",
    path: ["reviewUid"],
  });

export const teamFindingsInput = z.object({ projectUid: uid });

/** What a saved finding takes from the form, whether it lands on a review or among the team's. */
function findingFields(input: z.infer<typeof saveFindingInput>, evidence: string) {
  const { title, severity, category, file, startLine, endLine, explanation } = input;
  return { title, severity, category, file, startLine, endLine, evidence, explanation };
}

/** The lines' own text, or a refusal saying why they are not there. */
function linesOf(sandbox: Sandbox, file: string, startLine: number, endLine: number): string {
  let content: string;
  try {
    content = sandbox.readFile(file).content;
  } catch {
    throw invalid(`There is no file "${file}" in that code: pick a file the answer cites.`);
  }
  const located = locateEvidence(content, { startLine, endLine, evidence: "" });
  if (located.status !== "ok")
    throw invalid(
      located.status === "dropped"
        ? `${file} has no lines ${startLine}–${endLine} (${located.reason}).`
        : `${file} ends at line ${located.endLine}: lines ${startLine}–${endLine} do not all exist.`,
    );
  return located.evidence;
}

export function createAnswerFindings(deps: { db: Db; config: Config }) {
  const { db, config } = deps;

  async function loadAnswer(actor: Actor, answerUid: string, role: "viewer" | "member") {
    const a = await db.askMessage.findUnique({ where: { uid: answerUid }, include: { thread: true } });
    if (!a || a.kind !== "answer") throw notFound(`No answer with id ${answerUid}.`);
    await requireRole(db, actor, a.workspaceId, role);
    return a;
  }

  async function sandboxOf(snapshotId: string): Promise<Sandbox> {
    const s = await db.snapshot.findUnique({ where: { id: snapshotId } });
    if (!s || s.status !== "ready") throw invalid("That code is no longer imported, so the lines cannot be checked.");
    return new Sandbox(snapshotDirs(config.dataDir, s.projectId, s.id).src);
  }

  return {
    async draft(actor: Actor, input: z.infer<typeof draftInput>) {
      const a = await loadAnswer(actor, input.answerUid, "viewer");
      const details = parseDetails(a.details);
      const text = input.selection?.trim() || a.body;
      const [reviewFindings, staticFindings, reviews] = await Promise.all([
        db.reviewFinding.findMany({
          where: a.thread.reviewId ? { reviewId: a.thread.reviewId } : { projectId: a.thread.projectId },
          select: { file: true, startLine: true, endLine: true, severity: true, category: true },
          take: 2000,
        }),
        db.staticFinding.findMany({
          where: { snapshotId: a.thread.snapshotId },
          select: { file: true, startLine: true, endLine: true, severity: true, ruleId: true, tool: true },
          take: 2000,
        }),
        db.review.findMany({
          where: { projectId: a.thread.projectId, status: "completed" },
          orderBy: { createdAt: "desc" },
          select: { uid: true, id: true, createdAt: true, engine: true, model: true },
          take: 10,
        }),
      ]);
      const known: LineFinding[] = [...reviewFindings, ...staticFindings.map(staticLineFinding)];
      const thread = a.thread.reviewId ? reviews.find((r) => r.id === a.thread.reviewId) : undefined;
      return {
        draft: draftFinding({ text, citations: details.citations, known }),
        reviews: reviews.map((r) => ({
          uid: r.uid,
          label: `Review of ${r.createdAt.toISOString().slice(0, 16).replace("T", " ")} (${r.engine === "agent" ? (r.model ?? "agent") : "static"})`,
        })),
        /** Where the form points first: the review it was asked from, else the team list. */
        defaultTarget: thread ? { target: "review" as const, reviewUid: thread.uid } : { target: "team" as const },
      };
    },

    async save(actor: Actor, input: z.infer<typeof saveFindingInput>) {
      const user = requireUser(actor);
      const a = await loadAnswer(actor, input.answerUid, "member");
      if (input.target === "review") {
        const review = await db.review.findUnique({ where: { uid: input.reviewUid! } });
        if (!review || review.projectId !== a.thread.projectId)
          throw notFound("That review is not one of this project's.");
        if (review.status !== "completed")
          throw conflict("That review has not completed; save the finding once it has.");
        const evidence = linesOf(await sandboxOf(review.snapshotId), input.file, input.startLine, input.endLine);
        const fp = fingerprint({ file: input.file, category: input.category, evidence, title: input.title });
        const existing = await db.reviewFinding.findUnique({
          where: { reviewId_fingerprint: { reviewId: review.id, fingerprint: fp } },
        });
        if (existing) throw conflict(`That review already has this finding ("${existing.title}").`);
        // Two saves of the same finding at once both pass the check above: the unique index on
        // (review, fingerprint) lets one in, and the other is told so, not given a server error.
        await db
          .$transaction(async (tx) => {
            await tx.reviewFinding.create({
              data: {
                reviewId: review.id,
                projectId: review.projectId,
                fingerprint: fp,
                ...findingFields(input, evidence),
                confidence: 1,
                verification: "not_run",
                source: "team",
              },
            });
            await tx.review.update({ where: { id: review.id }, data: { findingsCount: { increment: 1 } } });
          })
          .catch((err: unknown) => {
            if (isUniqueViolation(err))
              throw conflict(
                `That review already has this finding ("${input.title}"): it was saved a moment ago, by another click or a teammate.`,
              );
            throw err;
          });
        return { target: "review" as const, reviewUid: review.uid, fingerprint: fp };
      }
      const evidence = linesOf(await sandboxOf(a.thread.snapshotId), input.file, input.startLine, input.endLine);
      const row = await db.teamFinding.create({
        data: {
          uid: crypto.randomUUID(),
          projectId: a.thread.projectId,
          snapshotId: a.thread.snapshotId,
          ...findingFields(input, evidence),
          createdById: user.userId,
          answerUid: a.uid,
        },
      });
      return { target: "team" as const, uid: row.uid };
    },

    async teamFindings(actor: Actor, input: z.infer<typeof teamFindingsInput>) {
      const project = await db.project.findUnique({ where: { uid: input.projectUid } });
      if (!project) throw notFound(`No project with id ${input.projectUid}.`);
      await requireRole(db, actor, project.workspaceId, "viewer");
      const rows = await db.teamFinding.findMany({
        where: { projectId: project.id },
        orderBy: { createdAt: "desc" },
        take: 200,
      });
      const [snapUid, name] = await Promise.all([
        snapshotUids(
          db,
          rows.map((r) => r.snapshotId),
        ),
        userNames(
          db,
          rows.map((r) => r.createdById),
        ),
      ]);
      return rows.map((r) => ({
        uid: r.uid,
        title: r.title,
        severity: r.severity,
        category: r.category,
        file: r.file,
        startLine: r.startLine,
        endLine: r.endLine,
        evidence: r.evidence,
        explanation: r.explanation,
        snapshotUid: snapUid.get(r.snapshotId) ?? null,
        createdBy: name.get(r.createdById) ?? "A former member",
        createdAt: r.createdAt.toISOString(),
      }));
    },
  };
}
