/**
 * The room and the PR as one conversation, for the findings Argus posted inline:
 *  - PR → room: a reply to an Argus comment, and a 👍 / 👎 reaction on it, appear in the finding's
 *    thread in the review's room, written by the forge's user (`github:<login>`), and count as that
 *    person's vote: 👍 real, 👎 false positive, a reply saying "false positive" / "won't fix" /
 *    "real" … that verdict. A false-positive team verdict, from either side, teaches the project's
 *    memory (finding_dismissal, server/review/team.ts): the finding is not raised again.
 *  - room → PR: when a finding's team verdict changes in the room, its PR thread hears it — a reply
 *    saying the verdict; false positive, won't fix and duplicate also resolve the thread.
 *
 * Reactions: GitHub sends no webhook for them, so they are read (forge.reactions) whenever a PR's job
 * runs — every pull_request delivery and every comment on the PR — for the PR's open Argus comments
 * (reaction-votes.ts; a pull_request job's read at most once per PR in 30 s); a reaction taken back
 * on the PR withdraws the vote it gave. Each reply and reaction is taken once (forge_feedback: its
 * forge id).
 */
import { isUniqueViolation } from "../db/client.ts";
import { forgePersonId } from "../shared/forge-people.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { teamVerdict, VERDICT_LABEL, type Verdict } from "../shared/team-verdicts.ts";
import type { FeedbackDeps } from "./feedback-deps.ts";
import { createReactionVotes, PULL_JOB_READ_INTERVAL_MS } from "./reaction-votes.ts";
import { verdictOfText } from "./verdict-text.ts";
import type { JobMap } from "../jobs/kinds.ts";
import type { CommentJob } from "./github/intake.ts";
import { roomUrl } from "./publish.ts";
import type { PullRef } from "./types.ts";

export type VerdictJob = JobMap["forge.verdict"];

export { verdictOfText };

export type { FeedbackDeps };

export function createFeedback(deps: FeedbackDeps) {
  const { db, config } = deps;

  /** Records a reply or reaction once; false when it was taken before. */
  async function takeOnce(commentRowId: string, externalId: string, kind: string, author: string, content: string) {
    try {
      await db.forgeFeedback.create({
        data: { commentId: commentRowId, externalId, kind, author, content: content.slice(0, 8000) },
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
  const reactions = createReactionVotes(deps, takeOnce);

  return {
    /** A reply (without @argus) in the thread of one of Argus's inline comments. */
    async reply(job: CommentJob): Promise<void> {
      if (job.comment.inReplyTo === undefined) return;
      const posted = await db.forgeComment.findFirst({
        where: {
          commentId: String(job.comment.inReplyTo),
          pull: { number: job.number, repo: { installationId: job.installationId, externalId: String(job.repo.id) } },
        },
        include: { pull: true },
      });
      if (!posted) return; // a reply to someone else's comment
      const reviewUid = posted.reviewUid ?? posted.pull.lastReviewUid;
      if (!reviewUid) return;
      const author = job.comment.author;
      if (!(await takeOnce(posted.id, `reply:${job.comment.id}`, "reply", author, job.comment.body))) return;
      const voter = forgePersonId("github", author);
      await deps.say(reviewRoom(reviewUid), posted.fingerprint, voter, job.comment.body);
      const verdict = verdictOfText(job.comment.body);
      if (verdict) await deps.vote(reviewUid, posted.fingerprint, voter, verdict);
    },

    /** 👍 / 👎 on the PR's open Argus comments, read from the forge (it sends no webhook for them). */
    pollReactions: (pullId: string): Promise<void> => reactions.poll(pullId),
    /** The same for a pull_request job: at most once per PR in PULL_JOB_READ_INTERVAL_MS (reaction-votes.ts). */
    pollReactionsThrottled: (pullId: string): Promise<void> =>
      reactions.poll(pullId, { atMostEvery: PULL_JOB_READ_INTERVAL_MS }),

    /** The room's verdict on a finding changed: say it on every PR thread of that finding. */
    async verdictJob(job: VerdictJob): Promise<void> {
      const review = await db.review.findUnique({
        where: { uid: job.reviewUid },
        select: { id: true, projectId: true },
      });
      if (!review) return;
      const votes = await db.findingVote.findMany({
        where: { reviewId: review.id, fingerprint: job.fingerprint },
        select: { verdict: true },
      });
      const verdict = teamVerdict(votes as { verdict: Verdict }[]);
      const comments = await db.forgeComment.findMany({
        where: { fingerprint: job.fingerprint, pull: { repo: { projectId: review.projectId } } },
        include: { pull: { include: { repo: true } } },
      });
      for (const c of comments) {
        if ((c.verdict ?? null) === verdict) continue;
        await db.forgeComment.update({ where: { id: c.id }, data: { verdict } });
        if (!verdict) continue; // votes taken back: nothing to say
        const forge = await deps.forgeFor(c.pull.repo.installationId);
        const ref: PullRef = { repo: c.pull.repo.fullName, number: c.pull.number };
        const closes = verdict !== "real";
        await forge.reply(
          ref,
          c.commentId,
          `The team judged this finding **${VERDICT_LABEL[verdict]}** in Argus` +
            `${verdict === "false_positive" ? " — it will not be raised again on this repository" : ""}` +
            ` ([the review room](${roomUrl(config, job.reviewUid)})).`,
        );
        if (closes && !c.resolvedAt) {
          await forge.resolveThread(ref, c.commentId);
          await db.forgeComment.update({ where: { id: c.id }, data: { resolvedAt: new Date() } });
        }
      }
    },
  };
}
export type Feedback = ReturnType<typeof createFeedback>;
