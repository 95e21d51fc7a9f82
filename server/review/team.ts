/**
 * The team's judgement of a review's findings: votes (real / false positive / won't fix / duplicate
 * of another finding of the review) and resolve / reopen. A finding whose team verdict is false
 * positive joins the project's "don't raise again" memory (finding_dismissal, source "vote"), and
 * leaves it again when the votes change — a dismissal someone made by hand stays as it is. Every
 * change is an event of the review's room carrying the finding's new state.
 *
 * The socket protocol has authorized the room for the actor as a member; this service checks what
 * only it knows: that the room is a review's and the finding (and its duplicate) are of that review.
 *
 * A pull request's reviewers vote too (server/forges/feedback.ts: 👍 / 👎 on an Argus comment, a reply
 * saying "false positive" …), as `github:<login>` voters; a room vote is told to the forge side
 * (`onVerdict`), which says it on the PR thread.
 */
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db, Tx } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { AuthorizedRoom } from "../rooms/access.ts";
import { forgePersonName } from "../shared/forge-people.ts";
import { parseRoom, reviewRoom } from "../shared/rooms.ts";
import { teamVerdict, type Verdict, type Vote } from "../shared/team-verdicts.ts";

export interface VoteInput {
  fingerprint: string;
  verdict: Verdict | null;
  duplicateOf?: string;
}

export function createFindingTeam(deps: {
  db: Db;
  events: EventBus;
  /** A member voted in a review's room (the PR of a posted finding hears of it). */
  onVerdict?: (reviewUid: string, fingerprint: string) => void;
}) {
  const { db, events } = deps;

  async function reviewOf(room: AuthorizedRoom) {
    const parsed = parseRoom(room.name);
    if (parsed?.kind !== "review") throw invalid("Only a review's findings take votes; this room is not a review's.");
    const review = await db.review.findUnique({
      where: { uid: parsed.uid },
      select: { id: true, uid: true, projectId: true },
    });
    if (!review) throw notFound("This review was deleted.");
    return review;
  }

  async function findingOf(reviewId: string, fingerprint: string) {
    const f = await db.reviewFinding.findUnique({ where: { reviewId_fingerprint: { reviewId, fingerprint } } });
    if (!f) throw notFound("That finding is not part of this review.");
    return f;
  }

  async function votesOf(tx: Tx | Db, reviewId: string, fingerprint: string): Promise<Vote[]> {
    const rows = await tx.findingVote.findMany({ where: { reviewId, fingerprint }, orderBy: { updatedAt: "asc" } });
    const name = await namesOf(
      tx,
      rows.map((r) => r.userId),
    );
    return rows.map((r) => toVote(r, name));
  }

  /** Writes one voter's verdict, keeps the project's "don't raise again" memory in step, tells the room. */
  async function cast(
    review: { id: string; uid: string; projectId: string },
    finding: { title: string },
    voterId: string,
    input: VoteInput,
  ): Promise<Vote[]> {
    const key = { reviewId: review.id, fingerprint: input.fingerprint };
    const { votes, dismissal } = await db.$transaction(async (tx) => {
      if (input.verdict === null) await tx.findingVote.deleteMany({ where: { ...key, userId: voterId } });
      else
        await tx.findingVote.upsert({
          where: { reviewId_fingerprint_userId: { ...key, userId: voterId } },
          create: { ...key, userId: voterId, verdict: input.verdict, duplicateOf: input.duplicateOf ?? null },
          update: { verdict: input.verdict, duplicateOf: input.duplicateOf ?? null },
        });
      const votes = await votesOf(tx, review.id, input.fingerprint);
      const where = { projectId_fingerprint: { projectId: review.projectId, fingerprint: input.fingerprint } };
      const had = await tx.findingDismissal.findUnique({ where });
      let dismissal: "added" | "removed" | null = null;
      if (teamVerdict(votes) === "false_positive") {
        if (!had) {
          await tx.findingDismissal.create({
            data: {
              projectId: review.projectId,
              fingerprint: input.fingerprint,
              title: finding.title,
              reason: "The team judged it a false positive.",
              source: "vote",
              createdById: voterId.includes(":") ? null : voterId,
            },
          });
          dismissal = "added";
        }
      } else if (had?.source === "vote") {
        await tx.findingDismissal.delete({ where });
        dismissal = "removed";
      }
      return { votes, dismissal };
    });
    const name = reviewRoom(review.uid);
    await events.publish(name, { type: "finding_votes", payload: { fingerprint: input.fingerprint, votes } });
    if (dismissal)
      await events.publish(name, {
        type: dismissal === "added" ? "finding_dismissed" : "finding_restored",
        payload: { fingerprint: input.fingerprint },
      });
    return votes;
  }

  return {
    async vote(actor: Actor, room: AuthorizedRoom, input: VoteInput): Promise<Vote[]> {
      const user = requireUser(actor);
      const review = await reviewOf(room);
      const finding = await findingOf(review.id, input.fingerprint);
      if (input.verdict === "duplicate") {
        if (input.duplicateOf === input.fingerprint) throw invalid("A finding cannot duplicate itself.");
        await findingOf(review.id, input.duplicateOf!).catch(() => {
          throw notFound("The finding it duplicates is not part of this review.");
        });
      }
      const votes = await cast(review, finding, user.userId, input);
      deps.onVerdict?.(review.uid, input.fingerprint);
      return votes;
    },

    /**
     * A verdict from someone on a pull request (`github:<login>`), on a finding of the review whose
     * room holds it; null takes their vote back. The room sees it as any vote.
     */
    async voteFromForge(reviewUid: string, fingerprint: string, voterId: string, verdict: Verdict | null) {
      const review = await db.review.findUnique({
        where: { uid: reviewUid },
        select: { id: true, uid: true, projectId: true },
      });
      if (!review) return null;
      const finding = await db.reviewFinding.findUnique({
        where: { reviewId_fingerprint: { reviewId: review.id, fingerprint } },
      });
      if (!finding) return null;
      return cast(review, finding, voterId, { fingerprint, verdict });
    },

    async resolve(
      actor: Actor,
      room: AuthorizedRoom,
      input: { fingerprint: string; resolved: boolean },
    ): Promise<void> {
      const user = requireUser(actor);
      const review = await reviewOf(room);
      const finding = await findingOf(review.id, input.fingerprint);
      const at = new Date();
      await db.reviewFinding.update({
        where: { id: finding.id },
        data: input.resolved ? { resolvedAt: at, resolvedById: user.userId } : { resolvedAt: null, resolvedById: null },
      });
      await events.publish(reviewRoom(review.uid), {
        type: "finding_resolved",
        payload: {
          fingerprint: input.fingerprint,
          resolved: input.resolved,
          by: { id: user.userId, name: user.name },
          at: at.toISOString(),
        },
      });
    },
  };
}

export type FindingTeam = ReturnType<typeof createFindingTeam>;

/** Per finding of a review: its votes and its thread's message count (for the findings list). */
export async function teamSummary(
  db: Db,
  reviewId: string,
  reviewUid: string,
): Promise<Map<string, { votes: Vote[]; threadCount: number }>> {
  const [rows, threads] = await Promise.all([
    db.findingVote.findMany({ where: { reviewId }, orderBy: { updatedAt: "asc" } }),
    db.roomMessage.groupBy({
      by: ["thread"],
      where: { room: reviewRoom(reviewUid), thread: { not: null }, deletedAt: null },
      _count: { _all: true },
    }),
  ]);
  const name = await namesOf(
    db,
    rows.map((r) => r.userId),
  );
  const out = new Map<string, { votes: Vote[]; threadCount: number }>();
  const entry = (fp: string) => {
    let e = out.get(fp);
    if (!e) out.set(fp, (e = { votes: [], threadCount: 0 }));
    return e;
  };
  for (const r of rows) entry(r.fingerprint).votes.push(toVote(r, name));
  for (const t of threads) entry(t.thread!).threadCount = t._count._all;
  return out;
}

async function namesOf(db: Tx | Db, ids: string[]): Promise<Map<string, string>> {
  const users = await db.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

function toVote(r: { userId: string; verdict: string; duplicateOf: string | null }, name: Map<string, string>): Vote {
  return {
    userId: r.userId,
    name: name.get(r.userId) ?? forgePersonName(r.userId) ?? "A former member",
    verdict: r.verdict as Verdict,
    duplicateOf: r.duplicateOf,
  };
}
