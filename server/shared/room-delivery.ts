/**
 * The client's half of "no gap, no double": events arrive from two places — the log (join / history
 * replies) and live — and overlap where they meet. Keeping only events past the last seq seen, in
 * seq order, rebuilds the log exactly: the server stores every event before it delivers it, so
 * whatever was missed live is in the log after the last seq the client had.
 */
export interface Sequenced {
  seq: number;
}

/** The events of `batch` with a seq past `lastSeq`, each once, in seq order; and the new last seq. */
export function freshEvents<E extends Sequenced>(
  lastSeq: number,
  batch: readonly E[],
): { fresh: E[]; lastSeq: number } {
  const fresh: E[] = [];
  let last = lastSeq;
  for (const e of [...batch].sort((a, b) => a.seq - b.seq)) {
    if (e.seq <= last) continue;
    fresh.push(e);
    last = e.seq;
  }
  return { fresh, lastSeq: last };
}

/** How long a gap in live events may stay open before the log is read to fill it. */
export const GAP_WAIT_MS = 200;

export interface RoomFeedOptions {
  /**
   * Asks for the log after `afterSeq`, because live events arrived with a gap before them. Answer
   * like a join: `page()` for each page, then `caughtUp()`. Without it a gap is not filled.
   */
  fetchAfter?: (afterSeq: number) => void;
  /** Default GAP_WAIT_MS. */
  gapWaitMs?: number;
}

/**
 * One room's delivery as a client sees it: while a join (or re-join after a reconnect) reads the log,
 * live events wait; once the log is read to its end they are merged, and later ones pass straight
 * through. `onFresh` gets every event exactly once, in seq order.
 *
 * Live events of one room can arrive out of order when several processes publish into it (a worker's
 * review events and a web node's chat travel different paths): an event past the next seq is held;
 * if the missing ones do not arrive within `gapWaitMs` the log after the last seq is read
 * (`fetchAfter`) — the server stores every event before it sends it, so the log has them.
 */
export class RoomFeed<E extends Sequenced> {
  private last = 0;
  private joining = true;
  private buffered: E[] = [];
  /** Live events past a gap, while it may still close by itself. */
  private held: E[] = [];
  private gapTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set (or replaced) by the owner of the socket: see RoomFeedOptions. */
  fetchAfter: ((afterSeq: number) => void) | undefined;
  private readonly gapWaitMs: number;

  constructor(
    private readonly onFresh: (events: E[]) => void,
    options: RoomFeedOptions = {},
  ) {
    this.fetchAfter = options.fetchAfter;
    this.gapWaitMs = options.gapWaitMs ?? GAP_WAIT_MS;
  }

  /** The seq to join after. Live events are held from now until `caughtUp`. */
  startJoin(): number {
    this.joining = true;
    this.clearGap();
    this.buffered.push(...this.held);
    this.held = [];
    return this.last;
  }

  /** A page of the log (a join or history reply). */
  page(events: readonly E[]): void {
    this.take(events);
  }

  /** The log was read to its end: held live events past it go out now, later ones at once. */
  caughtUp(): void {
    this.joining = false;
    const held = this.buffered;
    this.buffered = [];
    this.take(held);
  }

  live(event: E): void {
    if (this.joining) {
      this.buffered.push(event);
      return;
    }
    if (!this.fetchAfter) {
      this.take([event]);
      return;
    }
    this.held.push(event);
    this.takeContiguous();
    if (this.held.length === 0) this.clearGap();
    else this.gapTimer ??= setTimeout(() => this.fillGap(), this.gapWaitMs);
  }

  /** Stops the gap timer (the room is left). */
  close(): void {
    this.clearGap();
  }

  get lastSeq(): number {
    return this.last;
  }

  private fillGap(): void {
    this.gapTimer = null;
    if (this.held.length === 0 || !this.fetchAfter) return;
    const after = this.startJoin();
    this.fetchAfter(after);
  }

  private clearGap(): void {
    if (this.gapTimer !== null) clearTimeout(this.gapTimer);
    this.gapTimer = null;
  }

  /** Takes the held events that follow the last seq without a gap; keeps the rest held. */
  private takeContiguous(): void {
    const sorted = this.held.filter((h) => h.seq > this.last).sort((a, b) => a.seq - b.seq);
    let n = 0;
    let next = this.last + 1;
    for (; n < sorted.length && sorted[n]!.seq <= next; n++) if (sorted[n]!.seq === next) next++;
    this.take(sorted.slice(0, n));
    this.held = sorted.slice(n).filter((h) => h.seq > this.last);
  }

  private take(batch: readonly E[]): void {
    const { fresh, lastSeq } = freshEvents(this.last, batch);
    this.last = lastSeq;
    if (fresh.length) this.onFresh(fresh);
  }
}
