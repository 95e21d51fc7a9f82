/**
 * Every kind of background job, in one typed map: kind → the zod schema of its payload. `JobMap` is
 * what `JobQueue.enqueue` / `register` check a payload against at compile time; the queues also parse
 * each payload with its schema (in-process when it is added, BullMQ again when a worker takes it from
 * Redis), so a job never starts on a shape its handler does not expect. The handlers are registered in
 * one place, the composition root (server/context.ts, through `registerJobs` in ./registry.ts).
 *
 * Payloads carry ids and the little a worker cannot read from the database; never a secret in clear
 * (tokens and API keys travel sealed with AUTH_SECRET).
 */
import { z } from "zod";
import type { ImportPathPolicy, IngestSummary } from "../codebase/ingest/index.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";

const id = z.string().min(1);

/** What an import queues: never a plaintext token (the sealed one is opened when the job runs). */
const queuedSourceSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("git"),
    url: z.string().min(1),
    ref: z.string().optional(),
    tokenCipher: z.string().optional(),
  }),
  /** policy: checked again when the job runs (the folder may have changed since the request). */
  z.object({ kind: z.literal("path"), path: z.string().min(1), policy: z.custom<ImportPathPolicy>().optional() }),
  /**
   * Files the upload route already wrote. A shared queue (Redis) gets no summary — a big tree's file
   * list would be megabytes in Redis: it is in the snapshot folder (UPLOAD_SUMMARY_FILE) instead.
   */
  z.object({
    kind: z.literal("uploaded"),
    summary: z.custom<IngestSummary>().optional(),
    /**
     * A pull request's push applied onto the snapshot of the last reviewed commit (server/forges):
     * the per-file analysis runs on `changed` only and keeps that snapshot's findings for the rest.
     */
    reuse: z.object({ snapshotId: z.string().min(1), changed: z.array(z.string()) }).optional(),
  }),
]);

export const JOB_PAYLOADS = {
  /** Import a snapshot (server/snapshots/job.ts). */
  "snapshot.ingest": z.object({ snapshotId: id, source: queuedSourceSchema }),
  /** Run a review (server/review/job.ts). */
  review: z.object({ reviewId: id }),
  /** Answer a thread's waiting questions (server/ask/runner.ts). */
  "ask.thread": z.object({ threadId: id }),
  /** Build or rebuild a knowledge base's index (server/knowledge/job.ts). */
  "knowledge.index": z.object({ baseId: id }),
  /** Run a web pipeline run whose row and folder exist (server/pipelines/workspace/run-job.ts). */
  "pipeline.run": z.object({
    uid: id,
    file: z.string().min(1),
    cwd: z.string().min(1),
    demo: z.boolean().optional(),
    /** Where it runs and who started it: the job checks their role again and applies the same policy. */
    workspaceId: id,
    userId: id,
    /** The overrides (API keys among them), sealed. */
    sealedOverrides: z.string().optional(),
  }),
  /** A pull request's delivery: link, import its head, start its review (server/forges/pull-job.ts). */
  "forge.pull": z.object({
    installationId: id,
    repo: z.object({ id: z.number().int().positive(), fullName: z.string().min(3).max(300) }),
    number: z.number().int().positive(),
    action: z.enum(["opened", "reopened", "synchronize", "ready_for_review", "closed"]),
    headSha: z.string().min(1),
  }),
  /** A pull request's review ended: write it back to the PR (server/forges/publish.ts). */
  "forge.publish": z.object({ reviewUid: id }),
  /**
   * A comment on a pull request (server/forges/mentions.ts): `@argus …` (a question, or `@argus review`),
   * or a reply to one of Argus's inline comments (shown in the finding's thread; a verdict when it says one).
   */
  "forge.comment": z.object({
    installationId: id,
    repo: z.object({ id: z.number().int().positive(), fullName: z.string().min(3).max(300) }),
    number: z.number().int().positive(),
    comment: z.object({
      id: z.number().int().positive(),
      kind: z.enum(["review", "issue"]),
      body: z.string().max(65_536),
      author: z.string().min(1).max(100),
      /** GitHub: the review comment replied to; GitLab: the note's discussion (replies go to a discussion). */
      inReplyTo: z.union([z.number().int().positive(), z.string().min(1).max(100)]).optional(),
    }),
  }),
  /** An `@argus` question's answer ended: reply on the pull request (server/forges/mentions.ts). */
  "forge.answer": z.object({ answerUid: id }),
  /** A finding's team verdict changed in its room: say it on the PR thread (server/forges/feedback.ts). */
  "forge.verdict": z.object({ reviewUid: id, fingerprint: z.string().min(1).max(200) }),
} satisfies Record<string, z.ZodType>;

export type JobKind = keyof typeof JOB_PAYLOADS;
export type JobMap = { [K in JobKind]: z.infer<(typeof JOB_PAYLOADS)[K]> };
export const JOB_KINDS = Object.keys(JOB_PAYLOADS) as JobKind[];

export class JobPayloadError extends Error {}

/** The payload checked against its kind's schema; throws JobPayloadError saying what is wrong. */
export function parseJobPayload<K extends JobKind>(kind: K, payload: unknown): JobMap[K] {
  // Indexed by a generic key, TS cannot tie the schema to JobMap[K]; JobMap is defined from these schemas.
  const schema = JOB_PAYLOADS[kind] as unknown as z.ZodType<JobMap[K]> | undefined;
  if (!schema) throw new JobPayloadError(`"${String(kind)}" is not a job kind (known: ${JOB_KINDS.join(", ")}).`);
  const parsed = schema.safeParse(payload);
  if (!parsed.success)
    throw new JobPayloadError(
      `A "${kind}" job's payload is not valid: ${formatZodIssues(parsed.error, { separator: "; ", root: "payload" })}`,
    );
  return parsed.data;
}
