/**
 * A pull request's review ended: write it back to the PR — one review with the inline comments, the
 * one summary comment (edited, never posted twice), the `Argus` check for the head commit, and the
 * threads of findings the push fixed resolved. Run as a job when the review job ends (context.ts
 * hands the review's end here).
 *
 * A 422 on the review (a line no longer in the diff) is met by reading the diff again and planning
 * again; if the forge still refuses, the review lands without inline comments and every finding is in
 * the summary, with a note saying why. Rate limits are the adapter's business (it waits as told).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { JobMap } from "../jobs/kinds.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { severitySchema, type Severity } from "../shared/findings.ts";
import { diffLines } from "./diff-lines.ts";
import { planReview, type PlanFinding, type PlanInput, type ReviewPlan } from "./plan.ts";
import { readRepoRules } from "./repo-rules.ts";
import { selectReviewed } from "./selection.ts";
import { matcherFor } from "../lib/path-match.ts";
import { atLeast } from "../shared/findings.ts";
import { requestNoun, StaleLineError, type Forge, type PostedComment, type PullRef } from "./types.ts";

const MAX_SUGGESTION_SOURCE_BYTES = 1024 * 1024;

export type PublishJob = JobMap["forge.publish"];

/** What publishing reads of a review's stored scope: the paths a PR's review was started with. */
const storedScope = z.object({ paths: z.array(z.string()).optional() });

export interface PublishDeps {
  db: Db;
  config: Config;
  log: Logger;
  forgeFor: (installationId: string) => Promise<Forge>;
}

/** The head file's text inside the snapshot (never outside it), or null. */
function snapshotReader(root: string) {
  return (file: string): string | null => {
    const full = path.resolve(root, file);
    if (!full.startsWith(root + path.sep)) return null;
    try {
      const text = readFileSync(full);
      return text.length > MAX_SUGGESTION_SOURCE_BYTES ? null : text.toString("utf8");
    } catch {
      return null;
    }
  };
}

/** The summary's line about a huge PR's files that were not reviewed. */
export function skippedNote(
  skipped: string[],
  rules: { maxFiles: number; maxLines: number },
  noun = "pull request",
): string {
  const shown = skipped.slice(0, 20).map((p) => `\`${p}\``);
  const more = skipped.length > shown.length ? ` and ${skipped.length - shown.length} more` : "";
  return (
    `This ${noun} is over the review's limits (${rules.maxFiles} files, ${rules.maxLines} changed lines — ` +
    `.argus.yaml max_files / max_lines): ${skipped.length} file${skipped.length === 1 ? " was" : "s were"} not reviewed: ` +
    `${shown.join(", ")}${more}.`
  );
}

export function roomUrl(config: Config, reviewUid: string): string {
  const base = config.publicUrl ?? `http://localhost:${config.port}`;
  return `${base}/reviews/${reviewUid}`;
}

/** The inline comments the forge took, with the review that raised each (its room holds the finding). */
async function recordPosted(db: Db, pullId: string, reviewUid: string, plan: ReviewPlan, posted: PostedComment[]) {
  const byFingerprint = new Map(plan.comments.map((c) => [c.fingerprint, c]));
  for (const p of posted) {
    const c = byFingerprint.get(p.fingerprint);
    if (!c) continue;
    await db.forgeComment.upsert({
      where: { pullId_fingerprint: { pullId, fingerprint: p.fingerprint } },
      create: {
        pullId,
        fingerprint: p.fingerprint,
        commentId: p.commentId,
        threadId: p.threadId,
        path: c.path,
        line: c.line,
        reviewUid,
      },
      update: {
        commentId: p.commentId,
        threadId: p.threadId,
        path: c.path,
        line: c.line,
        resolvedAt: null,
        reviewUid,
      },
    });
  }
}

export function createPublishJob(deps: PublishDeps) {
  const { db, config, log } = deps;

  async function post(
    forge: Forge,
    ref: PullRef,
    input: PlanInput,
  ): Promise<{ plan: ReviewPlan; posted: PostedComment[] }> {
    let plan = planReview(input);
    const review = (p: ReviewPlan) => ({
      commitSha: input.headSha,
      body: `Argus left ${p.comments.length} comment${p.comments.length === 1 ? "" : "s"} on the changed lines; the summary is in the conversation.`,
      comments: p.comments,
    });
    if (plan.comments.length === 0) return { plan, posted: [] };
    try {
      return { plan, posted: await forge.postReview(ref, review(plan)) };
    } catch (err) {
      if (!(err instanceof StaleLineError)) throw err;
      log.warn({ pull: ref, reason: err.message }, "inline comments refused; reading the diff again");
    }
    // The diff moved under the review: plan on the diff as it is now.
    plan = planReview({ ...input, lines: diffLines(await forge.diff(ref)) });
    if (plan.comments.length > 0) {
      try {
        return { plan, posted: await forge.postReview(ref, review(plan)) };
      } catch (err) {
        if (!(err instanceof StaleLineError)) throw err;
      }
    }
    // Still refused: every finding goes to the summary (the review still lands).
    plan = planReview(
      {
        ...input,
        notes: [
          ...(input.notes ?? []),
          "The forge refused inline comments on lines that are no longer part of the diff; those findings are listed above instead.",
        ],
      },
      new Set(input.findings.map((f) => f.fingerprint)),
    );
    return { plan, posted: [] };
  }

  return async function runPublishJob(job: PublishJob): Promise<void> {
    const pull = await db.forgePull.findFirst({ where: { lastReviewUid: job.reviewUid }, include: { repo: true } });
    if (!pull || !pull.reviewingSha) return; // not a PR's review, or already published
    const review = await db.review.findUnique({ where: { uid: job.reviewUid } });
    if (!review) return;
    const forge = await deps.forgeFor(pull.repo.installationId);
    const ref: PullRef = { repo: pull.repo.fullName, number: pull.number };
    const url = roomUrl(config, review.uid);

    if (review.status !== "completed") {
      const body = `## Argus review\n\nThe review of \`${pull.reviewingSha.slice(0, 7)}\` ${review.status === "cancelled" ? "was cancelled" : "failed"}: ${review.statusReason ?? "no reason was recorded"}\n\n[Open the review room](${url})\n\n<!-- argus:summary -->`;
      const summaryCommentId = await forge.upsertSummary(ref, pull.summaryCommentId, body);
      await db.forgePull.update({ where: { id: pull.id }, data: { summaryCommentId, reviewingSha: null } });
      return;
    }

    const [rows, dismissed, comments] = await Promise.all([
      db.reviewFinding.findMany({ where: { reviewId: review.id } }),
      db.findingDismissal.findMany({ where: { projectId: review.projectId }, select: { fingerprint: true } }),
      db.forgeComment.findMany({ where: { pullId: pull.id } }),
    ]);
    const gone = new Set(dismissed.map((d) => d.fingerprint));
    const src = snapshotDirs(config.dataDir, review.projectId, review.snapshotId).src;
    // The repository's rules at the reviewed head; a malformed file is reported and the defaults apply.
    const { rules, problems } = await readRepoRules(src);
    const ignored = rules.ignore.length ? matcherFor(rules.ignore) : () => false;
    const findings: PlanFinding[] = rows
      .filter((f) => !gone.has(f.fingerprint) && !ignored(f.file))
      .filter((f) => atLeast(severitySchema.catch("info").parse(f.severity), rules.minSeverity))
      .map((f) => ({
        fingerprint: f.fingerprint,
        title: f.title,
        severity: severitySchema.catch("info").parse(f.severity) as Severity,
        confidence: f.confidence,
        file: f.file,
        startLine: f.startLine,
        endLine: f.endLine,
        explanation: f.explanation,
        suggestedFix: f.suggestedFix,
        diff: f.diff,
      }));
    const scope = storedScope.parse(JSON.parse(review.scope));
    const diff = await forge.diff(ref);
    const notes = problems.length ? [...problems, "The defaults applied instead of .argus.yaml."] : [];
    if (!pull.reviewingFrom && scope.paths) {
      // A huge PR: what its review left out (the same selection as pull-job.ts, over the same diff).
      const candidates = diff.filter((f) => f.status !== "removed" && !ignored(f.path)).map((f) => f.path);
      const { skipped } = selectReviewed(diff, candidates, rules);
      if (skipped.length) notes.push(skippedNote(skipped, rules, requestNoun(forge.kind)));
    }
    const input: PlanInput = {
      findings,
      lines: diffLines(diff),
      posted: new Map(comments.filter((c) => !c.resolvedAt).map((c) => [c.fingerprint, c.path])),
      postedResolved: new Set(comments.filter((c) => c.resolvedAt).map((c) => c.fingerprint)),
      reviewedFiles: new Set(scope.paths ?? findings.map((f) => f.file)),
      readFile: snapshotReader(path.resolve(src)),
      headSha: pull.reviewingSha,
      inlineCap: rules.inlineCap,
      minConfidence: rules.minConfidence,
      failOn: rules.failOnSet ? rules.failOn : ((pull.repo.failOn as Severity | null) ?? null),
      roomUrl: url,
      incrementalFrom: pull.reviewingFrom ?? undefined,
      notes: notes.length ? notes : undefined,
    };
    const { plan, posted } = await post(forge, ref, input);
    await recordPosted(db, pull.id, review.uid, plan, posted);
    for (const fp of plan.fixed) {
      const c = comments.find((x) => x.fingerprint === fp);
      if (!c) continue;
      await forge.resolveThread(ref, c.commentId);
      await db.forgeComment.update({ where: { id: c.id }, data: { resolvedAt: new Date() } });
    }
    const summaryCommentId = await forge.upsertSummary(ref, pull.summaryCommentId, plan.summary);
    const checkRunId = await forge.upsertCheck(ref, pull.checkRunId, plan.check);
    await db.forgePull.update({
      where: { id: pull.id },
      data: {
        summaryCommentId,
        checkRunId,
        lastReviewedSha: pull.reviewingSha,
        reviewingSha: null,
        reviewingFrom: null,
      },
    });
    log.info(
      {
        repo: ref.repo,
        pull: ref.number,
        review: review.uid,
        inline: posted.length,
        summary: plan.inSummary.length,
        fixed: plan.fixed.length,
      },
      "pull request review published",
    );
  };
}
