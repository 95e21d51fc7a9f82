"use client";
/**
 * Watching a room live: one Socket.IO connection per tab (the session cookie authenticates it), a
 * `join` that answers with the persisted log after the last seq we have (paged: `history` until no
 * `more`), then live events. Every event has its own seq (token deltas arrive coalesced, one frame
 * per seq), so de-duplicating by seq rebuilds the log exactly (server/shared/room-delivery.ts) —
 * also after a reconnect, which joins again with the last seq seen, and when live events arrive with
 * a gap (several nodes publish into one room): the feed reads the log after its last seq. The pages
 * of one join reach the state together, once the log is read to its end (a long log is one update,
 * not one per page). If the socket cannot connect (`offline`), the caller's polling fallback takes
 * over (`connected` stays false).
 *
 * The socket is typed with the shared protocol (server/shared/room-protocol.ts): events, payloads
 * and replies are the server's own types.
 *
 * Which socket, and who is looking, comes from the RoomAccess context: by default the session's
 * socket and the signed-in user of the app shell; a share link's page provides a socket opened with
 * the link's token (a spectator, who may only watch) and the reason its controls are off.
 */
import { createContext, useContext, useEffect, useRef, useState } from "react";
import { io, type Socket } from "socket.io-client";
import { RoomFeed } from "@/server/shared/room-delivery.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import { ackErrorText } from "@/server/shared/ack-text.ts";
import {
  type Ack,
  type ClientToServerEvents,
  type HistoryReply,
  PROTOCOL_OUTDATED,
  ROOM_PROTOCOL_VERSION,
  type ServerToClientEvents,
} from "@/server/shared/room-protocol.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";
import { WorkspaceContext } from "./workspace.tsx";

export type RoomSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let shared: RoomSocket | null = null;
export function roomSocket(): RoomSocket {
  if (!shared) {
    const s: RoomSocket = io({
      transports: ["websocket"],
      withCredentials: true,
      auth: { protocol: ROOM_PROTOCOL_VERSION },
    });
    // The server hung up on purpose (the session ended): that socket never reconnects, so the next
    // room opens a fresh one (with the new session's cookie after signing in again).
    s.on("disconnect", (reason) => {
      if (reason === "io server disconnect" && shared === s) shared = null;
    });
    shared = s;
  }
  return shared;
}

/**
 * A socket opened with a review's share link instead of the session cookie (`auth: { share }`): a
 * spectator of that review's room. One per token per tab. A refused or revoked link is not retried.
 */
const shareSockets = new Map<string, RoomSocket>();
export function shareSocket(token: string): RoomSocket {
  let s = shareSockets.get(token);
  if (!s) {
    s = io({
      transports: ["websocket"],
      withCredentials: false,
      auth: { share: token, protocol: ROOM_PROTOCOL_VERSION },
    });
    shareSockets.set(token, s);
  }
  return s;
}

export interface RoomAccess {
  /** The socket rooms are joined on. */
  socket: () => RoomSocket;
  /** The user looking (to mark their own messages and votes); null for a spectator. */
  selfId: string | null;
  /** Set for a spectator (a share link): why they can watch but not post, vote or steer. */
  readOnly: string | null;
}

const RoomAccessContext = createContext<RoomAccess | null>(null);
export const RoomAccessProvider = RoomAccessContext.Provider;
export function useRoomAccess(): RoomAccess {
  const given = useContext(RoomAccessContext);
  const shell = useContext(WorkspaceContext);
  return given ?? { socket: roomSocket, selfId: shell?.user.id ?? null, readOnly: null };
}

/**
 * Events kept per room. The whole log of a long review (20,000 events: bench/rooms) fits: the
 * activity log is virtualised and shows every line, and votes and resolutions folded from early
 * events are not dropped.
 */
const MAX_EVENTS = 50_000;

export interface RoomState<K extends RoomKind> {
  events: RoomEvent<K>[];
  /** Joined, the log read to its end, events arriving live. */
  connected: boolean;
  /** The log has been read to its end at least once for this room (`events` holds it, up to MAX_EVENTS). */
  loaded: boolean;
  /** The socket could not connect, or lost its connection and has not got it back: poll instead. */
  offline: boolean;
  error: string | null;
}

/** Events of one room of kind K, live, de-duplicated by seq (none while `room` is null). */
export function useRoom<K extends RoomKind>(room: RoomName<K> | null): RoomState<K> {
  const [events, setEvents] = useState<RoomEvent<K>[]>([]);
  const [connected, setConnected] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [offline, setOffline] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One feed per room: it keeps the last seq across reconnects (and starts again for another room).
  const feed = useRef<{
    room: string;
    feed: RoomFeed<RoomEvent<K>>;
    held: { joining: boolean; events: RoomEvent<K>[] };
    flush: () => void;
  } | null>(null);
  const { socket } = useRoomAccess();

  useEffect(() => {
    if (!room) return;
    const s = socket();
    let stale = false;
    if (feed.current?.room !== room) {
      // While a join reads the log its pages are held here and go to the state together at its end.
      const held: { joining: boolean; events: RoomEvent<K>[] } = { joining: false, events: [] };
      const append = (fresh: RoomEvent<K>[]) => setEvents((prev) => [...prev, ...fresh].slice(-MAX_EVENTS));
      feed.current = {
        room,
        held,
        flush: () => {
          const fresh = held.events;
          held.events = [];
          if (fresh.length) append(fresh);
        },
        feed: new RoomFeed<RoomEvent<K>>((fresh) => {
          if (held.joining) held.events.push(...fresh);
          else append(fresh);
        }),
      };
      setEvents([]);
      setLoaded(false);
    }
    const { feed: current, held, flush } = feed.current;

    // A live event names its room; the socket carries every joined room's events.
    const ofThisRoom = (e: RoomEvent): e is RoomEvent<K> => e.room === room;
    const onEvent = (e: RoomEvent) => {
      if (ofThisRoom(e)) current.live(e);
    };
    const onPage = (reply: Ack<HistoryReply>) => {
      if (stale) return;
      if (!reply.ok) {
        held.joining = false;
        flush(); // the pages read before the refusal
        setError(ackErrorText(reply));
        return;
      }
      current.page(reply.events.filter(ofThisRoom));
      if (reply.more) {
        s.emit("history", { room, afterSeq: current.lastSeq }, onPage);
        return;
      }
      current.caughtUp();
      held.joining = false;
      flush();
      setConnected(true);
      setLoaded(true);
      setOffline(false);
      setError(null);
    };
    const join = () => {
      held.joining = true;
      setOffline(false);
      s.emit("join", { room, afterSeq: current.startJoin() }, onPage);
    };
    // A gap in live events: read the log after the last seq, answered like a join.
    current.fetchAfter = (afterSeq) => s.emit("history", { room, afterSeq }, onPage);
    const onDisconnect = () => {
      setConnected(false);
      setOffline(true);
    };
    const onConnectError = (err: Error) => {
      setOffline(true);
      // This page predates the server's protocol: polling would not help, reloading does.
      const data = (err as Error & { data?: { code?: string; message?: string } }).data;
      if (data?.code === PROTOCOL_OUTDATED) {
        s.disconnect(); // no point retrying with the same page
        setError(data.message ?? "Argus was updated: reload the page.");
      }
    };
    // The server re-checks rights while connected: access lost → the room was left for us.
    const onRevoked = ({ room: r, reason }: { room: string; reason: string }) => {
      if (r !== room) return;
      current.startJoin(); // hold anything that still arrives
      setConnected(false);
      setError(reason);
    };
    s.on("event", onEvent);
    s.on("revoked", onRevoked);
    s.on("connect", join);
    s.on("disconnect", onDisconnect);
    s.on("connect_error", onConnectError);
    if (s.connected) join();
    else if (!s.active) setOffline(true); // a socket that gave up (a refused share link): it will not connect
    return () => {
      stale = true;
      current.close();
      held.joining = false;
      flush();
      s.off("event", onEvent);
      s.off("connect", join);
      s.off("disconnect", onDisconnect);
      s.off("connect_error", onConnectError);
      s.off("revoked", onRevoked);
      if (s.connected) s.emit("leave", { room });
    };
  }, [room, socket]);

  return { events, connected, loaded, offline, error };
}
