/**
 * "Ann is typing…": the client says `chat.typing` at most every TYPING_SIGNAL_MS while its user
 * types; the server passes it on to the room's other sockets (never stored); each client shows a
 * person as typing until TYPING_EXPIRES_MS pass without a new signal, or their message arrives.
 * The roster below is that bookkeeping, pure, so it is tested without a browser or a clock.
 */

/** How often a typing client says so (at most). */
export const TYPING_SIGNAL_MS = 2000;
/** How long a signal counts: a bit more than two intervals, so one late frame does not flicker. */
export const TYPING_EXPIRES_MS = 4000;
/** Typing signals a user may send (over all rooms) … */
export const TYPING_RATE_SIGNALS = 5;
/** … within this window (the client needs 3 at most). */
export const TYPING_RATE_WINDOW_MS = 5000;

export interface Typist {
  id: string;
  name: string;
}

/** Who is typing, by user id, with when their last signal expires. */
export type TypingRoster = ReadonlyMap<string, Typist & { until: number }>;

export function typingSignal(roster: TypingRoster, who: Typist, now: number): TypingRoster {
  const next = new Map(roster);
  next.set(who.id, { ...who, until: now + TYPING_EXPIRES_MS });
  return next;
}

/** The roster without `userId` (their message arrived). Returns the same roster when nothing changed. */
export function typingStopped(roster: TypingRoster, userId: string): TypingRoster {
  if (!roster.has(userId)) return roster;
  const next = new Map(roster);
  next.delete(userId);
  return next;
}

/** The roster without expired signals. Returns the same roster when nothing expired. */
export function typingAt(roster: TypingRoster, now: number): TypingRoster {
  const expired = [...roster.values()].filter((t) => t.until <= now);
  if (!expired.length) return roster;
  const next = new Map(roster);
  for (const t of expired) next.delete(t.id);
  return next;
}

/** When the next signal of the roster expires (null: nobody types). */
export function nextExpiry(roster: TypingRoster): number | null {
  let first: number | null = null;
  for (const t of roster.values()) if (first === null || t.until < first) first = t.until;
  return first;
}

/** "Ann is typing…", "Ann and Max are typing…", "Ann, Max and Bo are typing…", "4 people are typing…". */
export function describeTyping(names: readonly string[]): string {
  if (names.length === 0) return "";
  if (names.length === 1) return `${names[0]} is typing…`;
  if (names.length > 3) return `${names.length} people are typing…`;
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} are typing…`;
}
