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
 */
import { isUniqueViolation, type Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import {
  type RoomEvent,
  type RoomEventBody,
  roomEventSchemas,
  TOKEN_EVENTS,
  TOKEN_STREAM_FIELDS,
} from "../shared/room-events.ts";
import { parseRoom, type RoomKind, type RoomKindOf, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { type HistoryOptions, readLog } from "./history.ts";

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
/** Inserts tried before a publish gives up (each lost race means another process took that seq). */
const MAX_SEQ_ATTEMPTS = 50;

type Body = RoomEventBody;

interface OpenFrame {
  room: RoomName;
  /** The stream: type and other fields (streamKey). */
  key: string;
  /** The token event type (the agent's `token`, an answer's `ask.token`). */
  type: string;
  text: string;
  /** Payload fields other than `text` (the same for every delta of the frame). */
  rest: Record<string, unknown>;
  timer: NodeJS.Timeout;
  /** The window has ended: the frame goes as soon as the room has no write in flight. */
  due: boolean;
  /** The frame's stored event, once written: every delta's publish resolves with it. */
  written: Deferred<RoomEvent>;
}

export function createEventBus(deps: { db: Db; log: Logger; coalesceMs?: number }): EventBus {
  const { db, log } = deps;
  const coalesceMs = deps.coalesceMs ?? COALESCE_MS;
  const listeners = new Map<string, Set<RoomListener>>();
  const everyRoom = new Set<RoomListener>();
  /** The seq this process expects to take next per room (a guess: the insert decides). */
  const nextSeq = new Map<string, number>();
  /** Open token frames by room, then by stream (streamKey). */
  const frames = new Map<string, Map<string, OpenFrame>>();
  /** When each stream's last token frame went out (performance.now(), by room + stream); quiet ones are dropped. */
  const lastFrameAt = new Map<string, number>();
  function frameSent(stream: string, at: number): void {
    lastFrameAt.set(stream, at);
    if (lastFrameAt.size > 1000) for (const [r, t] of lastFrameAt) if (at - t >= coalesceMs) lastFrameAt.delete(r);
  }
  // Writes of one room are chained so rows land (and go out) in publish order.
  const chains = new Map<string, Promise<unknown>>();
  /** Writes of each room queued or in flight (absent: none). */
  const writing = new Map<string, number>();

  function check(room: string, event: unknown): Body {
    const parsed = parseRoom(room);
    if (!parsed || parsed.name !== room) throw new Error(`Not a room name: ${JSON.stringify(room)}`);
    const result = roomEventSchemas[parsed.kind].safeParse(event);
    if (!result.success)
      throw new Error(`Not an event of a ${parsed.kind} room: ${formatZodIssues(result.error, { separator: "; " })}`);
    return result.data;
  }

  async function lastSeq(room: string): Promise<number> {
    const last = await db.roomEvent.findFirst({ where: { room }, orderBy: { seq: "desc" }, select: { seq: true } });
    return last?.seq ?? 0;
  }

  /** Inserts the event with the room's next free seq (see the file comment) and returns it as stored. */
  async function store(room: RoomName, body: Body): Promise<RoomEvent> {
    const at = new Date();
    const payload = JSON.stringify(body.payload);
    let seq = nextSeq.get(room) ?? (await lastSeq(room)) + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await db.roomEvent.create({ data: { room, seq, type: body.type, payload, createdAt: at } });
        break;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= MAX_SEQ_ATTEMPTS) throw err;
        seq = (await lastSeq(room)) + 1; // another process took it
      }
    }
    nextSeq.set(room, seq + 1);
    return { ...body, room, seq, at: at.toISOString() } as RoomEvent;
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

  /** Stores then delivers, after every earlier write of the room. */
  function enqueue(room: RoomName, body: Body): Promise<RoomEvent> {
    writing.set(room, (writing.get(room) ?? 0) + 1);
    const write = async () => {
      try {
        const event = await store(room, body);
        emit(event);
        return event;
      } finally {
        writeDone(room);
      }
    };
    const result = (chains.get(room) ?? Promise.resolve()).then(write, write);
    // The chain continues whatever this write did; the caller sees its own outcome.
    chains.set(
      room,
      result.catch((err: unknown) => log.error({ err, room, type: body.type }, "could not store room event")),
    );
    return result;
  }

  /** A write of the room has ended: the last one lets a frame whose window is over go. */
  function writeDone(room: RoomName): void {
    const left = (writing.get(room) ?? 1) - 1;
    if (left > 0) {
      writing.set(room, left);
      return;
    }
    writing.delete(room);
    for (const frame of [...(frames.get(room)?.values() ?? [])]) if (frame.due) closeFrame(frame);
  }

  /** The frame's window has ended: it goes now, or after the write in flight (see the file comment). */
  function windowEnded(frame: OpenFrame): void {
    if (frames.get(frame.room)?.get(frame.key) !== frame) return;
    frame.due = true;
    if (!writing.has(frame.room)) closeFrame(frame);
  }

  /** Closes an open token frame: it is queued as one event, its deltas' publishes settle with it. */
  function closeFrame(frame: OpenFrame): void {
    const open = frames.get(frame.room);
    if (open?.get(frame.key) !== frame) return;
    open.delete(frame.key);
    if (open.size === 0) frames.delete(frame.room);
    clearTimeout(frame.timer);
    frameSent(`${frame.room}\n${frame.key}`, performance.now());
    enqueue(frame.room, { type: frame.type, payload: { ...frame.rest, text: frame.text } } as Body).then(
      frame.written.resolve,
      frame.written.reject,
    );
  }

  /** Closes every open frame of the room, oldest first (another event of the room is about to go). */
  function closeFrames(room: RoomName): void {
    for (const frame of [...(frames.get(room)?.values() ?? [])]) closeFrame(frame);
  }

  function publishToken(
    room: RoomName,
    type: string,
    payload: { text: string } & Record<string, unknown>,
  ): Promise<RoomEvent> {
    const { text, ...rest } = payload;
    const key = streamKey(type, rest);
    let frame = frames.get(room)?.get(key);
    if (frame && (frame.type !== type || !sameFields(frame.rest, rest))) {
      // The stream changed its other fields (a review's phase): its frame so far goes first.
      closeFrame(frame);
      frame = undefined;
    }
    if (!frame) {
      const stream = `${room}\n${key}`;
      const now = performance.now();
      const since = now - (lastFrameAt.get(stream) ?? -Infinity);
      const quiet = since >= coalesceMs;
      if (quiet && !writing.has(room)) {
        // A quiet stream with nothing of its room being written: this delta is a frame of its own,
        // now; the next ones wait for the window it opens.
        frameSent(stream, now);
        return enqueue(room, { type, payload: { ...rest, text } } as Body);
      }
      // Quiet while a write is in flight: the frame goes the moment that write is done (deltas arriving
      // meanwhile join it). Otherwise it waits for the rest of the window.
      const made: OpenFrame = {
        room,
        key,
        type,
        text: "",
        rest,
        timer: setTimeout(() => windowEnded(made), quiet ? coalesceMs : coalesceMs - since),
        due: quiet,
        written: deferred(),
      };
      made.timer.unref?.();
      frame = made;
      let open = frames.get(room);
      if (!open) frames.set(room, (open = new Map()));
      open.set(key, frame);
    }
    frame.text += text;
    return frame.written.promise;
  }

  async function publish(room: RoomName, event: Body): Promise<RoomEvent> {
    const body = check(room, event);
    if (TOKEN_EVENTS.has(body.type)) return publishToken(room, body.type, body.payload as { text: string });
    closeFrames(room);
    return enqueue(room, body);
  }

  /** This process's writes of the room so far, stored (open token text included). */
  async function settle(room: RoomName): Promise<void> {
    closeFrames(room);
    await chains.get(room);
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
      for (const stream of [...lastFrameAt.keys()]) if (stream.startsWith(`${room}\n`)) lastFrameAt.delete(stream);
      for (const frame of frames.get(room)?.values() ?? []) {
        clearTimeout(frame.timer);
        frame.written.reject(new Error(`Room ${room} was deleted.`));
      }
      frames.delete(room);
      await chains.get(room);
      chains.delete(room);
      nextSeq.delete(room);
      await db.roomEvent.deleteMany({ where: { room } });
      await db.roomMessage.deleteMany({ where: { room } }); // their edits cascade
    },

    async flush() {
      for (const room of [...frames.keys()]) closeFrames(room as RoomName);
      await Promise.all([...chains.values()]);
    },
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A fire-and-forget delta must not turn a failed write into an unhandled rejection: the write's
  // failure is logged by the chain.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** A token stream within a room: its event type and the fields that identify it (TOKEN_STREAM_FIELDS). */
function streamKey(type: string, rest: Record<string, unknown>): string {
  return JSON.stringify([type, ...(TOKEN_STREAM_FIELDS[type] ?? Object.keys(rest).sort()).map((k) => rest[k])]);
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k] === b[k]);
}
