/**
 * The one event bus. Every review, chat and pipeline run is a room ("review:<uid>", "run:<uid>" …);
 * services publish typed events into it, the log is persisted (so a room replays after a reload or a
 * restart) and live subscribers get each event as it is published. The Socket.IO room adapter
 * subscribes here; pages that predate it poll `history`.
 *
 * Token deltas are too many to store one row each: consecutive `token` events of a room are merged
 * into one persisted event (text concatenated) that is flushed when any other event of that room is
 * published, after FLUSH_MS, or on `flush()`. Live subscribers still receive every delta at once.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";

export interface RoomEvent<T = unknown> {
  room: string;
  /** 1, 2, 3 … per room; a delta's seq is the seq its merged row will get. */
  seq: number;
  type: string;
  payload: T;
  at: string;
}

export type RoomListener = (event: RoomEvent) => void;

export interface EventBus {
  publish<T>(room: string, type: string, payload: T): Promise<RoomEvent<T>>;
  /** Live events of one room; returns the unsubscribe function. */
  subscribe(room: string, listener: RoomListener): () => void;
  /** Persisted events with seq > afterSeq, oldest first (pending token text flushed first). */
  history(room: string, afterSeq?: number, limit?: number): Promise<RoomEvent[]>;
  deleteRoom(room: string): Promise<void>;
  flush(): Promise<void>;
}

export const TOKEN_EVENT = "token";
const FLUSH_MS = 250;

interface PendingTokens {
  seq: number;
  text: string;
  /** Payload fields other than `text` of the first delta (e.g. which message or step it belongs to). */
  rest: Record<string, unknown>;
  at: string;
  timer: NodeJS.Timeout;
}

export function createEventBus(deps: { db: Db; log: Logger }): EventBus {
  const { db, log } = deps;
  const listeners = new Map<string, Set<RoomListener>>();
  const nextSeq = new Map<string, number>();
  const pending = new Map<string, PendingTokens>();
  // Writes of one room are chained so rows land in seq order and a failed write does not stall the room.
  const chains = new Map<string, Promise<void>>();

  async function allocateSeq(room: string): Promise<number> {
    let next = nextSeq.get(room);
    if (next === undefined) {
      const last = await db.roomEvent.findFirst({ where: { room }, orderBy: { seq: "desc" }, select: { seq: true } });
      // Another publish may have raced us while we looked.
      next = nextSeq.get(room) ?? (last?.seq ?? 0) + 1;
    }
    nextSeq.set(room, next + 1);
    return next;
  }

  function persist(room: string, event: RoomEvent): Promise<void> {
    const write = async () => {
      await db.roomEvent.create({
        data: {
          room,
          seq: event.seq,
          type: event.type,
          payload: JSON.stringify(event.payload ?? null),
          createdAt: new Date(event.at),
        },
      });
    };
    const chained = (chains.get(room) ?? Promise.resolve()).then(write, write).catch((err: unknown) => {
      log.error({ err, room, type: event.type }, "could not persist room event");
    });
    chains.set(room, chained);
    return chained;
  }

  function emit(event: RoomEvent) {
    for (const listener of listeners.get(event.room) ?? []) {
      try {
        listener(event);
      } catch (err) {
        log.error({ err, room: event.room }, "room listener threw");
      }
    }
  }

  function flushRoom(room: string): Promise<void> {
    const p = pending.get(room);
    if (!p) return chains.get(room) ?? Promise.resolve();
    pending.delete(room);
    clearTimeout(p.timer);
    return persist(room, { room, seq: p.seq, type: TOKEN_EVENT, payload: { ...p.rest, text: p.text }, at: p.at });
  }

  return {
    async publish<T>(room: string, type: string, payload: T): Promise<RoomEvent<T>> {
      const at = new Date().toISOString();
      if (type === TOKEN_EVENT) {
        const { text = "", ...rest } = (payload ?? {}) as { text?: string } & Record<string, unknown>;
        const open = pending.get(room);
        if (open && sameKeys(open.rest, rest)) {
          open.text += text;
          const event = { room, seq: open.seq, type, payload, at };
          emit(event);
          return event;
        }
        if (open) await flushRoom(room);
        const seq = await allocateSeq(room);
        const timer = setTimeout(() => void flushRoom(room), FLUSH_MS);
        timer.unref?.();
        pending.set(room, { seq, text, rest, at, timer });
        const event = { room, seq, type, payload, at };
        emit(event);
        return event;
      }
      await flushRoom(room);
      const seq = await allocateSeq(room);
      const event = { room, seq, type, payload, at };
      const written = persist(room, event);
      emit(event);
      await written;
      return event;
    },

    subscribe(room, listener) {
      let set = listeners.get(room);
      if (!set) listeners.set(room, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(room);
      };
    },

    async history(room, afterSeq = 0, limit = 5000) {
      await flushRoom(room);
      const rows = await db.roomEvent.findMany({
        where: { room, seq: { gt: afterSeq } },
        orderBy: { seq: "asc" },
        take: limit,
      });
      return rows.map((r) => ({
        room,
        seq: r.seq,
        type: r.type,
        payload: JSON.parse(r.payload) as unknown,
        at: r.createdAt.toISOString(),
      }));
    },

    async deleteRoom(room) {
      const p = pending.get(room);
      if (p) clearTimeout(p.timer);
      pending.delete(room);
      await (chains.get(room) ?? Promise.resolve());
      chains.delete(room);
      nextSeq.delete(room);
      await db.roomEvent.deleteMany({ where: { room } });
    },

    async flush() {
      await Promise.all([...pending.keys()].map(flushRoom));
      await Promise.all([...chains.values()]);
    },
  };
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}
