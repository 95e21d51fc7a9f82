/**
 * Steering a running agent review (server/shared/steering.ts): the service behind the room's
 * steer.* messages, and the review job's beforeTurn hook (the loop's seam between iterations).
 *
 * Everything is a row of review_steer first — the review's steering record — so the hook reads the
 * same state whichever process runs the job, a paused review stays paused across a reload, and a
 * restart finds it paused (the restart policy in service.ts keeps it queued, not failed). Every
 * change is also signalled (server/cluster/signals.ts), which wakes the waiting hook at once in
 * whichever process runs the review; without the signal it sees the change within POLL_MS.
 *
 * The socket protocol has authorized the room for the actor as a member; this service checks what
 * only it knows: the room is an agent review's, it is still going, and the action makes sense now.
 */
import { requireUser, type Actor } from "../auth/access.ts";
import type { Db, ReviewSteer } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { Signals } from "../cluster/signals.ts";
import type { AuthorizedRoom } from "../rooms/access.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";
import { CHAT_RATE_MESSAGES, CHAT_RATE_WINDOW_MS } from "../shared/room-chat.ts";
import { parseRoom, reviewRoom } from "../shared/rooms.ts";
import { isActiveReview } from "../shared/statuses.ts";
import type { SteeringState } from "../shared/steering.ts";
import type { BeforeTurn } from "../agent/index.ts";

/** How often a paused hook looks at the database for a resume from another process. */
export const POLL_MS = 1000;

/** What the model reads for a hint (the author's name says it is a person, not the system). */
export const hintMessage = (author: string, text: string) =>
  `A teammate (${author}) watching this review adds a hint: ${text}`;

type Action = "pause" | "resume" | "stop";

/** What the review says of a Stop (a note of its report; the run ends with it). */
export const stopMessage = (name: string) => `Stopped by ${name}: the report covers what was explored until then.`;

/** The signal that wakes a review's waiting hook: `{ reviewId }`. */
export const STEER_SIGNAL = "review.steer";

export function createSteering(deps: {
  db: Db;
  events: EventBus;
  log: Logger;
  signals?: Signals;
  rateLimits?: RateLimitStore;
}) {
  const { db, events, log } = deps;
  /** Hooks of this process waiting on a paused review, woken by any steering change. */
  const waiters = new Map<string, Set<() => void>>();
  const stops = stopWatchers((id) => stateOf(id), log);
  const limiter = createRateLimiter({
    max: CHAT_RATE_MESSAGES,
    windowMs: CHAT_RATE_WINDOW_MS,
    store: deps.rateLimits,
    name: "hints",
    message: (s) => `You are sending hints too fast; try again in ${s} s.`,
  });

  const wakeHere = (reviewId: string) => {
    for (const w of waiters.get(reviewId) ?? []) w();
    stops.wake(reviewId);
  };
  deps.signals?.subscribe(STEER_SIGNAL, ({ reviewId }) => {
    if (typeof reviewId === "string") wakeHere(reviewId);
  });
  const wake = (reviewId: string) => {
    if (!deps.signals) return wakeHere(reviewId);
    void deps.signals.publish(STEER_SIGNAL, { reviewId });
  };

  async function names(ids: string[]): Promise<Map<string, string>> {
    const users = await db.user.findMany({
      where: { id: { in: [...new Set(ids)] } },
      select: { id: true, name: true },
    });
    return new Map(users.map((u) => [u.id, u.name]));
  }

  /** The review's steering now, from its record. */
  async function stateOf(reviewId: string): Promise<SteeringState> {
    const rows = await db.reviewSteer.findMany({
      where: { reviewId, kind: { in: ["pause", "resume", "stop"] } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const lastToggle = rows.filter((r) => r.kind !== "stop").at(-1);
    const stop = rows.find((r) => r.kind === "stop");
    const who = await names(rows.map((r) => r.authorId));
    const byWhom = (r: ReviewSteer) => ({
      by: { id: r.authorId, name: who.get(r.authorId) ?? "A former member" },
      at: r.createdAt.toISOString(),
    });
    return {
      paused: lastToggle?.kind === "pause" ? byWhom(lastToggle) : null,
      stopRequested: stop ? byWhom(stop) : null,
    };
  }

  /** The review of the room, if it can be steered: an agent review still going. */
  async function steerable(room: AuthorizedRoom) {
    const parsed = parseRoom(room.name);
    if (parsed?.kind !== "review") throw invalid("Only a review can be steered; this room is not a review's.");
    const review = await db.review.findUnique({ where: { uid: parsed.uid } });
    if (!review) throw notFound("This review was deleted.");
    if (review.engine !== "agent") throw invalid("A static review has no agent to steer.");
    if (!isActiveReview(review.status))
      throw conflict(`This review is ${review.status}: there is nothing to steer any more.`);
    return review;
  }

  async function record(reviewId: string, kind: ReviewSteer["kind"], authorId: string, text?: string) {
    return db.reviewSteer.create({
      data: { uid: crypto.randomUUID(), reviewId, kind, authorId, ...(text === undefined ? {} : { text }) },
    });
  }

  /** Waits until this process hears of a change, POLL_MS pass, or the run is cancelled. */
  function changed(reviewId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = waiters.get(reviewId);
      if (!set) waiters.set(reviewId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0) waiters.delete(reviewId);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      signal.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }

  return {
    stateOf,

    async hint(actor: Actor, room: AuthorizedRoom, text: string): Promise<{ id: string }> {
      const user = requireUser(actor);
      const review = await steerable(room);
      await limiter.hit(user.userId);
      const row = await record(review.id, "hint", user.userId, text);
      await events.publish(reviewRoom(review.uid), {
        type: "hint",
        payload: { id: row.uid, author: { id: user.userId, name: user.name }, text, at: row.createdAt.toISOString() },
      });
      wake(review.id);
      return { id: row.uid };
    },

    async act(actor: Actor, room: AuthorizedRoom, action: Action): Promise<void> {
      const user = requireUser(actor);
      const review = await steerable(room);
      const now = await stateOf(review.id);
      if (now.stopRequested)
        throw conflict(`${now.stopRequested.by.name} already stopped this review; it is writing its report.`);
      if (action === "pause" && now.paused) throw conflict(`${now.paused.by.name} already paused this review.`);
      if (action === "resume" && !now.paused) throw conflict("This review is not paused.");
      const row = await record(review.id, action, user.userId);
      await events.publish(reviewRoom(review.uid), {
        type: "steering",
        payload: {
          action: action === "pause" ? "paused" : action === "resume" ? "resumed" : "stop_requested",
          by: { id: user.userId, name: user.name },
          at: row.createdAt.toISOString(),
        },
      });
      wake(review.id);
    },

    /**
     * Calls onStop once, as soon as a teammate's Stop for the review reaches this process (the steer
     * signal), with the text that says who stopped it. The job aborts its run with it: the model
     * request in flight ends at once instead of at the next turn. Returns the unsubscribe.
     */
    watchStop: (reviewId: string, onStop: (message: string) => void) => stops.watch(reviewId, onStop),

    /**
     * The review job's hook: holds the loop while the review is paused, stops it when a stop was
     * asked for, and hands over the hints that came since the last turn (to the review's own
     * conversation only: a verification check is about one finding and gets none).
     */
    beforeTurnFor(review: { id: string; uid: string }, signal: AbortSignal): BeforeTurn {
      return async (state, phase) => {
        for (;;) {
          if (signal.aborted) return;
          const now = await stateOf(review.id);
          if (now.stopRequested) return { stop: stopMessage(now.stopRequested.by.name) };
          if (!now.paused) break;
          await changed(review.id, signal);
        }
        if (phase === "verifying") return;
        const pending = await db.reviewSteer.findMany({
          where: { reviewId: review.id, kind: "hint", deliveredAt: null },
          orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        });
        if (!pending.length) return;
        await db.reviewSteer.updateMany({
          where: { id: { in: pending.map((h) => h.id) } },
          data: { deliveredAt: new Date() },
        });
        const who = await names(pending.map((h) => h.authorId));
        for (const h of pending)
          await events
            .publish(reviewRoom(review.uid), {
              type: "hint_delivered",
              payload: { id: h.uid, iteration: state.iterations + 1 },
            })
            .catch((err: unknown) => log.warn({ err }, "hint_delivered not published"));
        return pending.map((h) => hintMessage(who.get(h.authorId) ?? "a former member", h.text ?? ""));
      };
    },
  };
}

export type Steering = ReturnType<typeof createSteering>;

/** Running reviews of this process that end at once on a Stop: each woken review's state is read. */
function stopWatchers(stateOf: (reviewId: string) => Promise<SteeringState>, log: Logger) {
  const watchers = new Map<string, Set<() => void>>();
  return {
    wake(reviewId: string) {
      for (const w of watchers.get(reviewId) ?? []) w();
    },
    watch(reviewId: string, onStop: (message: string) => void): () => void {
      let fired = false;
      const check = () => {
        if (fired) return;
        void stateOf(reviewId)
          .then((now) => {
            if (!now.stopRequested || fired) return;
            fired = true;
            onStop(stopMessage(now.stopRequested.by.name));
          })
          .catch((err: unknown) => log.warn({ err, reviewId }, "steering state not read"));
      };
      let set = watchers.get(reviewId);
      if (!set) watchers.set(reviewId, (set = new Set()));
      set.add(check);
      return () => {
        set.delete(check);
        if (set.size === 0) watchers.delete(reviewId);
      };
    },
  };
}
