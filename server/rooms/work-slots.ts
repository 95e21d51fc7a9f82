/**
 * Caps on concurrent database work of room messages (the `slot` of each kind in message-limits.ts):
 * reads of rooms' logs and chats, and writes (chat, reactions, votes, resolves, steering). A socket
 * runs at most `perSocket` of each at once and a node at most `perNode`; a few more wait their turn,
 * and past that the message is refused with when to retry instead of queueing without end (a queue
 * is memory, and replies no one will read in time). With SQLite every query shares one connection:
 * without these caps one socket's burst would queue the whole node (health included) behind it.
 */
import { RateLimited } from "../lib/rate-limit.ts";

export interface SlotCaps {
  perSocket: number;
  waitingPerSocket: number;
  perNode: number;
  waitingPerNode: number;
}

/** Reads: a join and the next history page (or a chat page) of one socket may overlap. */
export const READ_SLOTS: SlotCaps = { perSocket: 2, waitingPerSocket: 4, perNode: 4, waitingPerNode: 64 };
/** Writes: one at a time per socket (a person clicks one thing at a time). */
export const WRITE_SLOTS: SlotCaps = { perSocket: 1, waitingPerSocket: 4, perNode: 4, waitingPerNode: 64 };
/** What a refused message is told: by then the work ahead of it has usually finished. */
export const SLOT_RETRY_MS = 1000;

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

export interface WorkSlots {
  /** Runs `work` once the socket and the node have a slot free, or throws RateLimited. */
  run<T>(socketId: string, work: () => Promise<T>): Promise<T>;
  forget(socketId: string): void;
}

export function createWorkSlots(caps: SlotCaps, what: string): WorkSlots {
  const node = new Slots(caps.perNode, caps.waitingPerNode);
  const sockets = new Map<string, Slots>();
  const busy = () =>
    new RateLimited(`Too many ${what} at once; try again in ${SLOT_RETRY_MS / 1000} s.`, SLOT_RETRY_MS);
  return {
    async run(socketId, work) {
      let own = sockets.get(socketId);
      if (!own) {
        own = new Slots(caps.perSocket, caps.waitingPerSocket);
        sockets.set(socketId, own);
      }
      const releaseOwn = await own.acquire();
      if (!releaseOwn) throw busy();
      try {
        const releaseNode = await node.acquire();
        if (!releaseNode) throw busy();
        try {
          return await work();
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
