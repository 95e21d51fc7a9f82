/**
 * The token deltas of the fan-out bench and how a watcher accounts for them. Each delta's text
 * carries its run, its index and the moment it was created — `[run.index@ms]` — so a watcher can
 * take frames apart (the bus concatenates the deltas of a window into one frame) and tell, per
 * delta, whether it arrived, how late, once or twice, and in order. All processes run on one
 * machine, so `performance.timeOrigin + performance.now()` is one clock for all of them.
 */

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across local processes. */
export const clock = () => performance.timeOrigin + performance.now();

export function deltaText(run: number, index: number, createdAt: number): string {
  return `[${run}.${index}@${createdAt.toFixed(3)}]`;
}

const DELTA = /\[(\d+)\.(\d+)@([\d.]+)\]/g;

/** What one connection received of one run. */
export class DeltaTally {
  private readonly seen: Uint8Array;
  private maxIndex = -1;
  unique = 0;
  duplicates = 0;
  /** Deltas that arrived after a later one had already arrived. */
  reordered = 0;
  /** Messages (frames) that carried at least one delta of the run. */
  frames = 0;
  latencies: number[] = [];
  lastArrival = 0;

  constructor(
    readonly run: number,
    readonly expected: number,
  ) {
    this.seen = new Uint8Array(expected);
  }

  get complete(): boolean {
    return this.unique === this.expected;
  }

  /** Takes one received message's text apart; `arrival` is when the message reached the handler. */
  take(text: string, arrival: number): void {
    let counted = false;
    for (const m of text.matchAll(DELTA)) {
      if (Number(m[1]) !== this.run) continue;
      const index = Number(m[2]);
      if (index >= this.expected) continue;
      if (!counted) {
        this.frames++;
        counted = true;
      }
      if (this.seen[index]) {
        this.duplicates++;
        continue;
      }
      this.seen[index] = 1;
      this.unique++;
      if (index < this.maxIndex) this.reordered++;
      else this.maxIndex = index;
      this.latencies.push(arrival - Number(m[3]));
      this.lastArrival = arrival;
    }
  }
}
