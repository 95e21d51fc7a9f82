/**
 * Limits on every message of the room protocol (server/shared/room-protocol.ts), members and share-link
 * guests alike. One table, MESSAGE_BUDGETS, gives each message kind its budget; a new kind adds one
 * line there (the table is typed over every kind, so a kind without a budget does not compile).
 *
 * Two layers, checked in this order for each message:
 * 1. Per socket, a token bucket per kind in this process's memory (a socket lives on one node): a
 *    flood is refused here without touching the database or Redis, in microseconds.
 * 2. Per person (a user, or a guest's share link and address), a sliding window per kind in the
 *    shared rate-limit store (Redis when REDIS_URL is set — server/cluster/rate-limit-store.ts — so a
 *    person's budget is the same whichever nodes their sockets reach; this process's memory
 *    otherwise): opening more sockets does not multiply it.
 *
 * A socket refused again and again (DROP_AFTER_REFUSALS within DROP_WINDOW_MS) is past asking nicely:
 * the caller disconnects it.
 */
import type { ClientMessage } from "../shared/room-protocol.ts";
import { memoryRateLimitStore, type RateLimitStore } from "../lib/rate-limit.ts";

/** A token bucket: `burst` messages at once, refilled at `perSecond`. */
export interface Bucket {
  burst: number;
  perSecond: number;
}

export interface MessageBudget {
  member: Bucket;
  /**
   * A share-link guest's budget: smaller (guests only read, and nobody answers for them). Null for
   * the kinds a guest may never send (SPECTATOR_MESSAGES): those are refused by their kind first.
   */
  guest: Bucket | null;
  /** Reads or writes the database: holds a slot of that kind while it runs (work-slots.ts). */
  slot?: "read" | "write";
}

const b = (burst: number, perSecond: number): Bucket => ({ burst, perSecond });
const EMPTY: Bucket = { burst: 0, perSecond: 1 / 60 };

/**
 * The budget of each message kind. Members' figures leave room for what the browser does on its own
 * (a reconnect joins every open room at once; a long log is read in pages of REPLY_MAX_BYTES, a
 * 20,000-event review in about a dozen; presence follows the keyboard through findings); guests get
 * what watching one review needs.
 */
export const MESSAGE_BUDGETS: Record<ClientMessage, MessageBudget> = {
  join: { member: b(20, 1), guest: b(5, 0.2), slot: "read" },
  leave: { member: b(30, 2), guest: b(10, 0.5) },
  history: { member: b(20, 2), guest: b(10, 0.5), slot: "read" },
  "chat.page": { member: b(30, 1), guest: b(10, 0.25), slot: "read" },
  "chat.edits": { member: b(20, 0.5), guest: null, slot: "read" },
  "chat.send": { member: b(20, 0.5), guest: null, slot: "write" },
  "chat.edit": { member: b(20, 0.5), guest: null, slot: "write" },
  "chat.delete": { member: b(20, 0.5), guest: null, slot: "write" },
  "chat.typing": { member: b(10, 1), guest: null },
  "chat.react": { member: b(30, 1), guest: null, slot: "write" },
  "presence.update": { member: b(60, 10), guest: null },
  // Each vote or resolve is stored as room events for good (hole 4 of issue 25): a triage pass is
  // tens of findings a minute, one click at a time, not hundreds.
  "finding.vote": { member: b(10, 0.5), guest: null, slot: "write" },
  "finding.resolve": { member: b(10, 0.5), guest: null, slot: "write" },
  "steer.hint": { member: b(10, 0.2), guest: null, slot: "write" },
  "steer.pause": { member: b(10, 0.2), guest: null, slot: "write" },
  "steer.resume": { member: b(10, 0.2), guest: null, slot: "write" },
  "steer.stop": { member: b(10, 0.2), guest: null, slot: "write" },
  // Co-editing: the browser sends an edit per keystroke batch (at most one per 25 ms) and a cursor
  // per move (at most one per 50 ms); a fast typist is ~10 keys/s, a paste is one update. No slot:
  // an edit waits on its doc's own queue (server/coedit/registry.ts), and a refused one is re-sent
  // by the next sync, never lost.
  "doc.open": { member: b(20, 1), guest: null, slot: "read" },
  "doc.update": { member: b(80, 25), guest: null },
  "doc.awareness": { member: b(60, 15), guest: null },
  "doc.save": { member: b(5, 0.2), guest: null, slot: "write" },
};

/**
 * The shared per-person window: a minute of a socket's sustained rate plus its burst, times the
 * sockets a person plausibly has open (tabs) — beyond that, more sockets buy nothing.
 */
export const PERSON_WINDOW_MS = 60_000;
export const SOCKETS_PER_PERSON = 4;
export function personRule(bucket: Bucket): { max: number; windowMs: number } {
  return {
    max: Math.ceil(bucket.burst + bucket.perSecond * (PERSON_WINDOW_MS / 1000)) * SOCKETS_PER_PERSON,
    windowMs: PERSON_WINDOW_MS,
  };
}

/** Refusals within DROP_WINDOW_MS after which the socket is disconnected. */
export const DROP_AFTER_REFUSALS = 30;
export const DROP_WINDOW_MS = 10_000;

/** Who sends: the socket (its own buckets), the person (shared budget key), and whether a guest. */
export interface Sender {
  socketId: string;
  personKey: string;
  guest: boolean;
}

export type LimitDecision =
  | { allowed: true }
  /**
   * `refusal`: the reply's words and wait (a plain object: a flood makes thousands, and an Error
   * would capture a stack for each). `drop`: this socket has been refused too often: disconnect it.
   */
  | { allowed: false; refusal: { message: string; retryAfterMs: number }; drop: boolean };

export interface MessageLimiter {
  check(sender: Sender, kind: ClientMessage): Promise<LimitDecision>;
  /**
   * The socket's own bucket alone, synchronously: a refusal (or null when a token was taken and the
   * person's shared window is still to ask, with `checkShared`). Called as each message arrives, so
   * a flood delivered in one read is refused — and its socket marked for dropping — before any of it
   * waits on anything.
   */
  checkLocal(sender: Sender, kind: ClientMessage): LimitDecision | null;
  /** The person's shared window (after `checkLocal` let the message through). */
  checkShared(sender: Sender, kind: ClientMessage): Promise<LimitDecision>;
  /** Forget a socket's buckets (on disconnect). */
  forget(socketId: string): void;
}

interface SocketState {
  /** Per kind: tokens left and when they were counted. */
  buckets: Map<ClientMessage, { tokens: number; at: number }>;
  refusals: number[];
}

const WHAT: Partial<Record<ClientMessage, string>> = {
  join: "Rooms are being joined",
  history: "The room's log is being read",
  "chat.page": "Chat pages are being read",
  "finding.vote": "Votes are coming",
  "finding.resolve": "Resolutions are coming",
  "presence.update": "Position updates are coming",
};

function refusal(kind: ClientMessage, retryAfterMs: number): { message: string; retryAfterMs: number } {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const what = WHAT[kind] ?? `${kind} messages are coming`;
  return {
    message: `${what} too fast; try again in ${seconds} s.`,
    retryAfterMs: Math.max(1, Math.ceil(retryAfterMs)),
  };
}

export function createMessageLimiter(
  opts: { store?: RateLimitStore; budgets?: Record<ClientMessage, MessageBudget>; now?: () => number } = {},
): MessageLimiter {
  const budgets = opts.budgets ?? MESSAGE_BUDGETS;
  const now = opts.now ?? Date.now;
  // Without a shared store the person's window is counted in this process (one node: the same thing).
  const store = opts.store ?? memoryRateLimitStore(now);
  const sockets = new Map<string, SocketState>();

  /** Takes a token from the socket's bucket, or says how long until one is there. */
  function take(state: SocketState, kind: ClientMessage, bucket: Bucket, t: number): number {
    const held = state.buckets.get(kind) ?? { tokens: bucket.burst, at: t };
    const tokens = Math.min(bucket.burst, held.tokens + ((t - held.at) / 1000) * bucket.perSecond);
    if (tokens >= 1) {
      state.buckets.set(kind, { tokens: tokens - 1, at: t });
      return 0;
    }
    state.buckets.set(kind, { tokens, at: t });
    return ((1 - tokens) / bucket.perSecond) * 1000;
  }

  function refuse(state: SocketState, kind: ClientMessage, retryAfterMs: number, t: number): LimitDecision {
    state.refusals = state.refusals.filter((at) => at > t - DROP_WINDOW_MS);
    state.refusals.push(t);
    return { allowed: false, refusal: refusal(kind, retryAfterMs), drop: state.refusals.length >= DROP_AFTER_REFUSALS };
  }

  const stateOf = (socketId: string): SocketState => {
    let state = sockets.get(socketId);
    if (!state) sockets.set(socketId, (state = { buckets: new Map(), refusals: [] }));
    return state;
  };
  // A kind guests may never send is refused by its kind before this; should one get here, it finds
  // an empty bucket (closed, not open).
  const bucketOf = (sender: Sender, kind: ClientMessage) =>
    (sender.guest ? budgets[kind].guest : budgets[kind].member) ?? EMPTY;

  function checkLocal(sender: Sender, kind: ClientMessage): LimitDecision | null {
    const t = now();
    const state = stateOf(sender.socketId);
    const wait = take(state, kind, bucketOf(sender, kind), t);
    return wait > 0 ? refuse(state, kind, wait, t) : null;
  }

  async function checkShared(sender: Sender, kind: ClientMessage): Promise<LimitDecision> {
    const shared = await store.consume(`msg:${kind}:${sender.personKey}`, personRule(bucketOf(sender, kind)));
    if (!shared.allowed) return refuse(stateOf(sender.socketId), kind, shared.retryAfterMs, now());
    return { allowed: true };
  }

  return {
    checkLocal,
    checkShared,
    async check(sender, kind) {
      return checkLocal(sender, kind) ?? checkShared(sender, kind);
    },
    forget(socketId) {
      sockets.delete(socketId);
    },
  };
}
