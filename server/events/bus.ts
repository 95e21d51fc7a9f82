/**
 * The one event bus. Every review, project, pipeline run and knowledge base is a room
 * (server/shared/rooms.ts); services publish events into it — only members of the room's union
 * (server/shared/room-events.ts), validated here — each event is persisted with the room's next seq,
 * then handed to live subscribers (the Socket.IO bridge). `history` reads the log back, parsing every
 * row again; pages that predate the socket poll it.
 *
 * Delivery: seq is 1, 2, 3 … per room, unique in the database (unique index on room + seq). A seq is
 * taken by inserting the row with it — the insert is the allocation — so two processes publishing
 * into one room cannot both take one: the loser's insert fails on the index and it retries with the
 * database's max + 1. Committed seqs therefore never skip (a seq is only taken after the one before
 * it was committed). Within a process, a room's writes are chained, so its events are persisted and
 * delivered in publish order, each after it is stored: a live event is always also in the log, and a
 * client that joins (or reconnects) and reads the log after its last seq misses nothing.
 *
 * Token deltas are coalesced, for storage and broadcast alike: the deltas of one stream within one
 * COALESCE_MS window become one event — one row, one frame to every watcher — so a stream of 10⁴
 * deltas is not 10⁴ rows or 10⁴ × watchers messages. A stream is a room, a token event type (the
 * agent's `token`, an answer's `ask.token`) and the fields that identify it (an answer's id;
 * TOKEN_STREAM_FIELDS): each has its own open frame, and a change of its other fields (a review's
 * phase) closes its frame first, so two streams in one room (two answers, or a review and an answer) both
 * coalesce instead of closing each other's frame at every delta. Any other event of the room closes
 * the room's open frames first, so order is kept. A window that ends
 * while the room's previous write is still in flight stays open until that write is done: its
 * deltas could not go out earlier anyway (writes are chained), and taking the ones that arrive
 * meanwhile into the same frame keeps a slow database or a busy process from piling up a queue of
 * small frames — each of them a row and a message to every watcher — that grows the delay of every
 * later delta (bench/rooms: 200 watchers, 1,000 deltas/s). A delta that finds the room quiet (no
 * token frame for a whole window) does not wait for a window: it goes out at once — or, if a write
 * is in flight, the moment that write is done — and opens the window the next ones wait in, so the
 * first words of an answer are not held back (bench/ask.ts); a steady stream stays at most one frame
 * per window.
 *
 * The parts: room-writes.ts (the ordered, seq-allocating writes), token-frames.ts (the coalescing),
 * history.ts (reading the log back); this file validates, composes them and holds the listeners.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { type RoomEvent, type RoomEventBody, roomEventSchemas, TOKEN_EVENTS } from "../shared/room-events.ts";
import { parseRoom, type RoomKind, type RoomKindOf, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { type HistoryOptions, readLog } from "./history.ts";
import { createRoomWrites } from "./room-writes.ts";
import { createTokenFrames } from "./token-frames.ts";

export type { RoomEvent, RoomEventBody } from "../shared/room-events.ts";

export type RoomListener<K extends RoomKind = RoomKind> = (event: RoomEvent<K>) => void;

export interface EventBus {
  /**
   * Persists and delivers the event; resolves with it as stored (a token delta: with the frame it
   * went out in). Rejects when the event is not one of the room's kind (a programming error, never
   * user input) or could not be stored (then nobody received it either).
   */
  publish<R extends RoomName>(room: R, event: RoomEventBody<RoomKindOf<R>>): Promise<RoomEvent<RoomKindOf<R>>>;
  /** Live events of one room; returns the unsubscribe function. */
  subscribe<R extends RoomName>(room: R, listener: RoomListener<RoomKindOf<R>>): () => void;
  /** Every live event this process stores, of every room (the fan-out to other nodes). */
  subscribeAll(listener: RoomListener): () => void;
  /**
   * Persisted events with seq > afterSeq, oldest first (this process's pending events stored first).
   * `omitTypes`: event types left out by prefix (e.g. `ask.`), before the limit, so a page stays full.
   * `maxBytes`: stop reading once the events' JSON array is past this size (the caller cuts the page
   * with fitFromStart, which then finds it over budget): a reply-sized page reads no more than it sends.
   * The log is read in chunks, giving way to other work between them (history.ts).
   */
  history<R extends RoomName>(
    room: R,
    afterSeq?: number,
    limit?: number,
    opts?: HistoryOptions,
  ): Promise<RoomEvent<RoomKindOf<R>>[]>;
  /** The room's thing was deleted: its log and its chat go with it. */
  deleteRoom(room: RoomName): Promise<void>;
  flush(): Promise<void>;
}

/**
 * The coalescing window for token deltas: at most one frame per room per window. A delta waits up to
 * the window, then the write and the fan-out: with 200 watchers at 1,000 deltas/s, 20 ms measured a
 * p99 of 40–48 ms where 30 ms gave 49–66 ms (bench/rooms), for ~50 frames/s instead of ~33.
 */
export const COALESCE_MS = 20;
export function createEventBus(deps: { db: Db; log: Logger; coalesceMs?: number }): EventBus {
  const { db, log } = deps;
  const listeners = new Map<string, Set<RoomListener>>();
  const everyRoom = new Set<RoomListener>();
  const writes = createRoomWrites({ db, log, deliver: emit, idle: (room) => frames.roomIdle(room) });
  const frames = createTokenFrames({ coalesceMs: deps.coalesceMs ?? COALESCE_MS, writes });

  function check(room: string, event: unknown): RoomEventBody {
    const parsed = parseRoom(room);
    if (!parsed || parsed.name !== room) throw new Error(`Not a room name: ${JSON.stringify(room)}`);
    const result = roomEventSchemas[parsed.kind].safeParse(event);
    if (!result.success)
      throw new Error(`Not an event of a ${parsed.kind} room: ${formatZodIssues(result.error, { separator: "; " })}`);
    return result.data;
  }

  function emit(event: RoomEvent) {
    for (const set of [listeners.get(event.room), everyRoom]) {
      for (const listener of set ?? []) {
        try {
          listener(event);
        } catch (err) {
          log.error({ err, room: event.room }, "room listener threw");
        }
      }
    }
  }

  async function publish(room: RoomName, event: RoomEventBody): Promise<RoomEvent> {
    const body = check(room, event);
    if (TOKEN_EVENTS.has(body.type)) return frames.publish(room, body.type, body.payload as { text: string });
    frames.closeRoom(room);
    return writes.enqueue(room, body);
  }

  /** This process's writes of the room so far, stored (open token text included). */
  async function settle(room: RoomName): Promise<void> {
    frames.closeRoom(room);
    await writes.settled(room);
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

    subscribeAll(listener) {
      everyRoom.add(listener);
      return () => everyRoom.delete(listener);
    },

    history: (async (room: RoomName, afterSeq = 0, limit = 5000, opts?: HistoryOptions) => {
      const kind = parseRoom(room)?.kind;
      if (!kind) throw new Error(`Not a room name: ${JSON.stringify(room)}`);
      await settle(room);
      return readLog({ db, log }, room, kind, { afterSeq, limit, ...opts });
    }) as EventBus["history"],

    async deleteRoom(room) {
      frames.dropRoom(room);
      await writes.forget(room);
      await db.roomEvent.deleteMany({ where: { room } });
      await db.roomMessage.deleteMany({ where: { room } }); // their edits cascade
    },

    async flush() {
      frames.closeAll();
      await writes.allSettled();
    },
  };
}
