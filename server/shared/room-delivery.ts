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

/**
 * One room's delivery as a client sees it: while a join (or re-join after a reconnect) reads the log,
 * live events wait; once the log is read to its end they are merged, and later ones pass straight
 * through. `onFresh` gets every event exactly once, in seq order.
 */
export class RoomFeed<E extends Sequenced> {
  private last = 0;
  private joining = true;
  private buffered: E[] = [];

  constructor(private readonly onFresh: (events: E[]) => void) {}

  /** The seq to join after. Live events are held from now until `caughtUp`. */
  startJoin(): number {
    this.joining = true;
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
    if (this.joining) this.buffered.push(event);
    else this.take([event]);
  }

  get lastSeq(): number {
    return this.last;
  }

  private take(batch: readonly E[]): void {
    const { fresh, lastSeq } = freshEvents(this.last, batch);
    this.last = lastSeq;
    if (fresh.length) this.onFresh(fresh);
  }
}
