"use client";
/**
 * Watching a room live: one Socket.IO connection per tab (the session cookie authenticates it), a
 * `join` that answers with the persisted log after the last seq we have (paged: `history` until no
 * `more`), then live events. Token deltas share the seq of the row they are stored in, so a live token
 * with the seq we already have extends it instead of being dropped as a duplicate. If the socket cannot
 * connect, the caller's polling fallback takes over (`connected` stays false).
 *
 * The socket is typed with the shared protocol (server/shared/room-protocol.ts): events, payloads
 * and replies are the server's own types.
 */
import { useEffect, useRef, useState } from "react";
import { io, type Socket } from "socket.io-client";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import type { ClientToServerEvents, HistoryReply, ServerToClientEvents } from "@/server/shared/room-protocol.ts";
import type { Ack } from "@/server/shared/room-protocol.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";

export type RoomSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let shared: RoomSocket | null = null;
export function roomSocket(): RoomSocket {
  if (!shared) {
    const s: RoomSocket = io({ transports: ["websocket"], withCredentials: true });
    // The server hung up on purpose (the session ended): that socket never reconnects, so the next
    // room opens a fresh one (with the new session's cookie after signing in again).
    s.on("disconnect", (reason) => {
      if (reason === "io server disconnect" && shared === s) shared = null;
    });
    shared = s;
  }
  return shared;
}

const MAX_EVENTS = 2000;

/** Events of one room of kind K, live, de-duplicated by seq. */
export function useRoom<K extends RoomKind>(
  room: RoomName<K>,
  enabled = true,
): { events: RoomEvent<K>[]; connected: boolean; error: string | null } {
  const [events, setEvents] = useState<RoomEvent<K>[]>([]);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const last = useRef<{ seq: number; type: string }>({ seq: 0, type: "" });

  useEffect(() => {
    if (!enabled) return;
    const s = roomSocket();
    let joined = false;
    let buffered: RoomEvent<K>[] = [];
    let stale = false;

    const accept = (batch: RoomEvent<K>[]) => {
      const fresh: RoomEvent<K>[] = [];
      for (const e of batch) {
        const extendsTokenRow = e.type === "token" && e.seq === last.current.seq && last.current.type === "token";
        if (e.seq <= last.current.seq && !extendsTokenRow) continue;
        last.current = { seq: e.seq, type: e.type };
        fresh.push(e);
      }
      if (fresh.length) setEvents((prev) => [...prev, ...fresh].slice(-MAX_EVENTS));
    };
    // A live event names its room; the socket carries every joined room's events.
    const ofThisRoom = (e: RoomEvent): e is RoomEvent<K> => e.room === room;
    const onEvent = (e: RoomEvent) => {
      if (!ofThisRoom(e)) return;
      if (joined) accept([e]);
      else buffered.push(e);
    };
    const onPage = (reply: Ack<HistoryReply>, resolve: () => void) => {
      if (stale) return;
      if (!reply.ok) {
        setError(reply.error);
        return;
      }
      accept(reply.events.filter(ofThisRoom));
      if (reply.more) s.emit("history", { room, afterSeq: last.current.seq }, (r) => onPage(r, resolve));
      else resolve();
    };
    const join = () => {
      joined = false;
      s.emit("join", { room, afterSeq: last.current.seq }, (reply) =>
        onPage(reply, () => {
          setConnected(true);
          setError(null);
          // Events that arrived while the log was read: reading it closed any open token row, so only
          // later seqs are new (deltas of that row are already in its stored text).
          const seen = last.current.seq;
          accept(buffered.filter((e) => e.seq > seen));
          buffered = [];
          joined = true;
        }),
      );
    };
    const onDisconnect = () => setConnected(false);
    // The server re-checks rights while connected: access lost → the room was left for us.
    const onRevoked = ({ room: r, reason }: { room: string; reason: string }) => {
      if (r !== room) return;
      joined = false;
      setConnected(false);
      setError(reason);
    };
    s.on("event", onEvent);
    s.on("revoked", onRevoked);
    s.on("connect", join);
    s.on("disconnect", onDisconnect);
    if (s.connected) join();
    return () => {
      stale = true;
      s.off("event", onEvent);
      s.off("connect", join);
      s.off("disconnect", onDisconnect);
      s.off("revoked", onRevoked);
      if (s.connected) s.emit("leave", { room });
    };
  }, [room, enabled]);

  return { events, connected, error };
}
