/**
 * 👍 / 👎 on Argus's inline comments as votes (feedback.ts tells the whole conversation). GitHub sends
 * no webhook for reactions, so they are read — for a PR's open Argus comments, at most
 * MAX_POLLED_COMMENTS — when the PR's jobs run, and compared with the reactions taken before
 * (forge_feedback, kind "reaction"):
 *
 *  - a new one counts as its author's vote (👍 real, 👎 false positive), said in the finding's thread;
 *  - one taken before and no longer there was taken back: the vote it gave is withdrawn (the room
 *    says so, the counts follow; a false-positive dismissal resting on it is lifted by the team's
 *    votes, server/review/team.ts) — unless that vote no longer rests on it: the person has voted
 *    otherwise since, or still says the same by another reaction or a reply on that comment.
 *
 * A comment whose reactions could not be read is left as it is (never read as "all taken back").
 *
 * Throttle: a pull_request job reads a PR's reactions only when none were read for it in the last
 * PULL_JOB_READ_INTERVAL_MS — deliveries come in bursts (a push, a close, labels …) and each read is
 * one GitHub request per open Argus comment, which kept the intake's p99 up (docs/forges.md,
 * Figures). A comment's job always reads: a person just wrote on the PR, often with a reaction.
 * The clock is this process's: a restart reads again.
 */
import type { Db } from "../db/client.ts";
import { forgePersonId } from "../shared/forge-people.ts";
import { reviewRoom } from "../shared/rooms.ts";
import type { Verdict } from "../shared/team-verdicts.ts";
import type { FeedbackDeps } from "./feedback-deps.ts";
import { verdictOfText } from "./verdict-text.ts";
import type { Forge, ForgeReaction, PullRef } from "./types.ts";

/** At most this many of a PR's open Argus comments have their reactions read per job. */
const MAX_POLLED_COMMENTS = 50;

const REACTION_VERDICT: Record<string, { verdict: Verdict; icon: string }> = {
  "+1": { verdict: "real", icon: "👍" },
  "-1": { verdict: "false_positive", icon: "👎" },
};

/** A pull_request job reads a PR's reactions at most once in this time (a comment's job always does). */
export const PULL_JOB_READ_INTERVAL_MS = 30_000;
/** Over this many PRs remembered, the ones read longer than the interval ago are forgotten. */
const MAX_REMEMBERED_READS = 1000;

/** Records a reply or reaction once; false when it was taken before. */
export type TakeOnce = (
  commentRowId: string,
  externalId: string,
  kind: string,
  author: string,
  content: string,
) => Promise<boolean>;

interface PolledComment {
  id: string;
  commentId: string;
  fingerprint: string;
}

export function createReactionVotes(
  deps: Pick<FeedbackDeps, "db" | "log" | "forgeFor" | "say" | "vote">,
  takeOnce: TakeOnce,
) {
  const { db, log } = deps;
  /** When each PR's reactions were last read (Date.now()), for the pull_request jobs' throttle. */
  const lastRead = new Map<string, number>();

  /** Whether a read is due now; marks it read when it is. */
  function due(pullId: string, atMostEvery: number | undefined): boolean {
    const now = Date.now();
    const last = lastRead.get(pullId);
    if (atMostEvery !== undefined && last !== undefined && now - last < atMostEvery) return false;
    if (lastRead.size >= MAX_REMEMBERED_READS)
      for (const [id, at] of lastRead) if (now - at >= PULL_JOB_READ_INTERVAL_MS) lastRead.delete(id);
    lastRead.set(pullId, now);
    return true;
  }

  async function takeNew(c: PolledComment, reviewUid: string, reactions: ForgeReaction[]) {
    for (const r of reactions) {
      const meaning = REACTION_VERDICT[r.content];
      if (!meaning || r.author.endsWith("[bot]")) continue;
      if (!(await takeOnce(c.id, `reaction:${r.id}`, "reaction", r.author, r.content))) continue;
      const voter = forgePersonId("github", r.author);
      await deps.say(reviewRoom(reviewUid), c.fingerprint, voter, `${meaning.icon} on the pull request`);
      await deps.vote(reviewUid, c.fingerprint, voter, meaning.verdict);
    }
  }

  async function withdrawTakenBack(c: PolledComment, reviewUid: string, reactions: ForgeReaction[]) {
    const present = new Set(reactions.map((r) => `reaction:${r.id}`));
    const taken = await db.forgeFeedback.findMany({ where: { commentId: c.id, kind: "reaction" } });
    for (const t of taken) {
      if (present.has(t.externalId)) continue;
      // Once: a concurrent read of the same PR that deleted it first does the rest.
      const { count } = await db.forgeFeedback.deleteMany({ where: { id: t.id } });
      const meaning = REACTION_VERDICT[t.content];
      if (count === 0 || !meaning) continue;
      const voter = forgePersonId("github", t.author);
      if (!(await restsOn(db, c, reviewUid, t.author, meaning.verdict, reactions))) continue;
      await deps.say(reviewRoom(reviewUid), c.fingerprint, voter, `${meaning.icon} taken back on the pull request`);
      await deps.vote(reviewUid, c.fingerprint, voter, null);
    }
  }

  return {
    /**
     * Reads the reactions on the PR's open Argus comments and takes what changed since the last read;
     * with `atMostEvery` (ms), not when they were read for this PR more recently than that.
     */
    async poll(pullId: string, opts: { atMostEvery?: number } = {}): Promise<void> {
      const pull = await db.forgePull.findUnique({ where: { id: pullId }, include: { repo: true } });
      if (!pull) return;
      const forge: Forge = await deps.forgeFor(pull.repo.installationId);
      if (!forge.reactions) return;
      const ref: PullRef = { repo: pull.repo.fullName, number: pull.number };
      const comments = await db.forgeComment.findMany({
        where: { pullId, resolvedAt: null },
        orderBy: { createdAt: "desc" },
        take: MAX_POLLED_COMMENTS,
      });
      if (comments.length === 0 || !due(pullId, opts.atMostEvery)) return;
      for (const c of comments) {
        const reviewUid = c.reviewUid ?? pull.lastReviewUid;
        if (!reviewUid) continue;
        let reactions;
        try {
          reactions = await forge.reactions(ref, c.commentId);
        } catch (err) {
          log.warn({ pull: ref, comment: c.commentId, err }, "the reactions on an Argus comment could not be read");
          continue;
        }
        await takeNew(c, reviewUid, reactions);
        await withdrawTakenBack(c, reviewUid, reactions);
      }
    },
  };
}

/**
 * Whether a person's vote on the finding rests on the reaction they took back: it is still that
 * verdict, and none of their reactions still there nor their replies on the comment say it too.
 */
async function restsOn(
  db: Db,
  c: PolledComment,
  reviewUid: string,
  author: string,
  verdict: Verdict,
  reactions: ForgeReaction[],
): Promise<boolean> {
  const vote = await db.findingVote.findFirst({
    where: { review: { uid: reviewUid }, fingerprint: c.fingerprint, userId: forgePersonId("github", author) },
    select: { verdict: true },
  });
  if (vote?.verdict !== verdict) return false;
  if (reactions.some((r) => r.author === author && REACTION_VERDICT[r.content]?.verdict === verdict)) return false;
  const replies = await db.forgeFeedback.findMany({
    where: { commentId: c.id, kind: "reply", author },
    select: { content: true },
  });
  return !replies.some((r) => verdictOfText(r.content) === verdict);
}

export type ReactionVotes = ReturnType<typeof createReactionVotes>;
