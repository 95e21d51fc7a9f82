/**
 * Caps on concurrent reads of rooms' logs and chats (the messages marked `read` in
 * message-limits.ts): a socket runs at most PER_SOCKET at once, a node at most PER_NODE; a few more
 * wait their turn, and past that the read is refused with when to retry instead of queueing without
 * end (a queue is memory, and replies that no one will read in time).
 */
import { RateLimited } from "./rate-limit.ts";

export const READS_PER_SOCKET = 2;
export const READS_WAITING_PER_SOCKET = 4;
export const READS_PER_NODE = 4;
export const READS_WAITING_PER_NODE = 64;
/** What a refused read is told: by then the reads ahead of it have usually finished. */
export const READ_RETRY_MS = 1000;

/** At most `max` holders at once, `maxWaiting` in line; `acquire` resolves to a release function. */
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  get busy(): number {
    return this.running + this.waiting.length;
  }

  /** A release function once a slot is free, or null at once when the line is full. */
  acquire(): Promise<(() => void) | null> {
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }
}

export interface ReadSlots {
  /** Runs `read` once the socket and the node have a slot free, or throws RateLimited. */
  run<T>(socketId: string, read: () => Promise<T>): Promise<T>;
  forget(socketId: string): void;
}

export function createReadSlots(
  opts: { perSocket?: number; waitingPerSocket?: number; perNode?: number; waitingPerNode?: number } = {},
): ReadSlots {
  const node = new Slots(opts.perNode ?? READS_PER_NODE, opts.waitingPerNode ?? READS_WAITING_PER_NODE);
  const sockets = new Map<string, Slots>();
  const busy = () =>
    new RateLimited(
      `Too many reads of this room's log at once; try again in ${READ_RETRY_MS / 1000} s.`,
      READ_RETRY_MS,
    );
  return {
    async run(socketId, read) {
      let own = sockets.get(socketId);
      if (!own) {
        own = new Slots(opts.perSocket ?? READS_PER_SOCKET, opts.waitingPerSocket ?? READS_WAITING_PER_SOCKET);
        sockets.set(socketId, own);
      }
      const releaseOwn = await own.acquire();
      if (!releaseOwn) throw busy();
      try {
        const releaseNode = await node.acquire();
        if (!releaseNode) throw busy();
        try {
          return await read();
        } finally {
          releaseNode();
        }
      } finally {
        releaseOwn();
      }
    },
    forget(socketId) {
      sockets.delete(socketId);
    },
  };
}
