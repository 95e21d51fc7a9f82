/**
 * The one event bus. Every review, project, pipeline run and knowledge base is a room
 * (server/shared/rooms.ts); services publish events into it — only members of the room's union
 * (server/shared/room-events.ts), validated here — the log is persisted (so a room replays after a
 * reload or a restart), every row read back is parsed again, and live subscribers get each event as it
 * is published. The Socket.IO room adapter subscribes here; pages that predate it poll `history`.
 *
 * Token deltas are too many to store one row each: consecutive `token` events of a room are merged
 * into one persisted event (text concatenated) that is flushed when any other event of that room is
 * published, after FLUSH_MS, or on `flush()`. Live subscribers still receive every delta at once.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { type RoomEvent, type RoomEventBody, roomEventSchemas, TOKEN_EVENT } from "../shared/room-events.ts";
import { parseRoom, type RoomKind, type RoomKindOf, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";

export type { RoomEvent, RoomEventBody } from "../shared/room-events.ts";

export type RoomListener<K extends RoomKind = RoomKind> = (event: RoomEvent<K>) => void;

export interface EventBus {
  /** Throws when the event is not one of the room's kind (a programming error, never user input). */
  publish<R extends RoomName>(room: R, event: RoomEventBody<RoomKindOf<R>>): Promise<RoomEvent<RoomKindOf<R>>>;
  /** Live events of one room; returns the unsubscribe function. */
  subscribe<R extends RoomName>(room: R, listener: RoomListener<RoomKindOf<R>>): () => void;
  /** Persisted events with seq > afterSeq, oldest first (pending token text flushed first). */
  history<R extends RoomName>(room: R, afterSeq?: number, limit?: number): Promise<RoomEvent<RoomKindOf<R>>[]>;
  deleteRoom(room: RoomName): Promise<void>;
  flush(): Promise<void>;
}
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

  /** The room's kind and the event checked against its union; throws on either being wrong. */
  function check(room: string, event: unknown): RoomEventBody {
    const parsed = parseRoom(room);
    if (!parsed || parsed.name !== room) throw new Error(`Not a room name: ${JSON.stringify(room)}`);
    const result = roomEventSchemas[parsed.kind].safeParse(event);
    if (!result.success)
      throw new Error(`Not an event of a ${parsed.kind} room: ${formatZodIssues(result.error, { separator: "; " })}`);
    return result.data;
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
    return persist(room, {
      room,
      seq: p.seq,
      type: TOKEN_EVENT,
      payload: { ...p.rest, text: p.text },
      at: p.at,
    } as RoomEvent);
  }

  async function publish(room: RoomName, body: RoomEventBody): Promise<RoomEvent> {
    const { type, payload } = check(room, body);
    const at = new Date().toISOString();
    const make = (seq: number) => ({ room, seq, type, payload, at }) as RoomEvent;
    if (type === TOKEN_EVENT) {
      const { text, ...rest } = payload as { text: string } & Record<string, unknown>;
      const open = pending.get(room);
      if (open && sameKeys(open.rest, rest)) {
        open.text += text;
        const event = make(open.seq);
        emit(event);
        return event;
      }
      if (open) await flushRoom(room);
      const seq = await allocateSeq(room);
      const timer = setTimeout(() => void flushRoom(room), FLUSH_MS);
      timer.unref?.();
      pending.set(room, { seq, text, rest, at, timer });
      const event = make(seq);
      emit(event);
      return event;
    }
    await flushRoom(room);
    const event = make(await allocateSeq(room));
    const written = persist(room, event);
    emit(event);
    await written;
    return event;
  }

  return {
    publish: publish as EventBus["publish"],

    subscribe: ((room: RoomName, listener: RoomListener) => {
      let set = listeners.get(room);
      if (!set) listeners.set(room, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(room);
      };
    }) as EventBus["subscribe"],

    history: (async (room: RoomName, afterSeq = 0, limit = 5000) => {
      const kind = parseRoom(room)?.kind;
      if (!kind) throw new Error(`Not a room name: ${JSON.stringify(room)}`);
      await flushRoom(room);
      const rows = await db.roomEvent.findMany({
        where: { room, seq: { gt: afterSeq } },
        orderBy: { seq: "asc" },
        take: limit,
      });
      const events: RoomEvent[] = [];
      for (const r of rows) {
        const parsed = roomEventSchemas[kind].safeParse({ type: r.type, payload: parseJson(r.payload) });
        if (!parsed.success) {
          // A row no schema describes (written by hand, or by a version that never shipped): left out,
          // and said so, rather than handed to a page that would trip over it.
          log.warn({ room, seq: r.seq, type: r.type }, "room event does not match its room's schema; skipped");
          continue;
        }
        events.push({ ...parsed.data, room, seq: r.seq, at: r.createdAt.toISOString() } as RoomEvent);
      }
      return events;
    }) as EventBus["history"],

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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}
