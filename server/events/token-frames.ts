/**
 * Token deltas coalesced into frames (see bus.ts for the why and the measurements): the deltas of one
 * stream — a room, a token event type and the fields that identify it (TOKEN_STREAM_FIELDS) — within
 * one window become one event. A quiet stream's first delta goes at once (or the moment the room's
 * write in flight is done) and opens the window the next ones wait in; a window that ends while the
 * room is being written stays open until that write is done.
 */
import { type RoomEvent, type RoomEventBody, TOKEN_STREAM_FIELDS } from "../shared/room-events.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { RoomWrites } from "./room-writes.ts";

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

export interface TokenFrames {
  /** A delta: resolves with the frame it went out in, once stored. */
  publish(room: RoomName, type: string, payload: { text: string } & Record<string, unknown>): Promise<RoomEvent>;
  /** Closes every open frame of the room, oldest first (another event of the room is about to go). */
  closeRoom(room: RoomName): void;
  /** Closes every open frame of every room. */
  closeAll(): void;
  /** The room's writes have ended: its frames whose window is over go now. */
  roomIdle(room: RoomName): void;
  /** The room was deleted: its open frames are dropped, their publishes rejected. */
  dropRoom(room: RoomName): void;
}

export function createTokenFrames(deps: { coalesceMs: number; writes: RoomWrites }): TokenFrames {
  const { coalesceMs, writes } = deps;
  /** Open token frames by room, then by stream (streamKey). */
  const frames = new Map<string, Map<string, OpenFrame>>();
  /** When each stream's last token frame went out (performance.now(), by room + stream); quiet ones are dropped. */
  const lastFrameAt = new Map<string, number>();
  function frameSent(stream: string, at: number): void {
    lastFrameAt.set(stream, at);
    if (lastFrameAt.size > 1000) for (const [r, t] of lastFrameAt) if (at - t >= coalesceMs) lastFrameAt.delete(r);
  }

  /** The frame's window has ended: it goes now, or after the write in flight. */
  function windowEnded(frame: OpenFrame): void {
    if (frames.get(frame.room)?.get(frame.key) !== frame) return;
    frame.due = true;
    if (!writes.writing(frame.room)) closeFrame(frame);
  }

  /** Closes an open token frame: it is queued as one event, its deltas' publishes settle with it. */
  function closeFrame(frame: OpenFrame): void {
    const open = frames.get(frame.room);
    if (open?.get(frame.key) !== frame) return;
    open.delete(frame.key);
    if (open.size === 0) frames.delete(frame.room);
    clearTimeout(frame.timer);
    frameSent(`${frame.room}\n${frame.key}`, performance.now());
    writes
      .enqueue(frame.room, { type: frame.type, payload: { ...frame.rest, text: frame.text } } as RoomEventBody)
      .then(frame.written.resolve, frame.written.reject);
  }

  function closeRoom(room: RoomName): void {
    for (const frame of [...(frames.get(room)?.values() ?? [])]) closeFrame(frame);
  }

  /** A new frame for the stream, after `since` ms of quiet: it waits for the rest of its window. */
  function openFrame(room: RoomName, key: string, type: string, rest: Record<string, unknown>, since: number) {
    const quiet = since >= coalesceMs;
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
    let open = frames.get(room);
    if (!open) frames.set(room, (open = new Map()));
    open.set(key, made);
    return made;
  }

  return {
    publish(room, type, payload) {
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
        if (since >= coalesceMs && !writes.writing(room)) {
          // A quiet stream with nothing of its room being written: this delta is a frame of its own,
          // now; the next ones wait for the window it opens.
          frameSent(stream, now);
          return writes.enqueue(room, { type, payload: { ...rest, text } } as RoomEventBody);
        }
        // Quiet while a write is in flight: the frame goes the moment that write is done (deltas
        // arriving meanwhile join it). Otherwise it waits for the rest of the window.
        frame = openFrame(room, key, type, rest, since);
      }
      frame.text += text;
      return frame.written.promise;
    },
    closeRoom,
    closeAll() {
      for (const room of [...frames.keys()]) closeRoom(room as RoomName);
    },
    roomIdle(room) {
      for (const frame of [...(frames.get(room)?.values() ?? [])]) if (frame.due) closeFrame(frame);
    },
    dropRoom(room) {
      for (const stream of [...lastFrameAt.keys()]) if (stream.startsWith(`${room}\n`)) lastFrameAt.delete(stream);
      for (const frame of frames.get(room)?.values() ?? []) {
        clearTimeout(frame.timer);
        frame.written.reject(new Error(`Room ${room} was deleted.`));
      }
      frames.delete(room);
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
