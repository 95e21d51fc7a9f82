"use client";
/**
 * Watching a room live: one Socket.IO connection per tab (the session cookie authenticates it), a
 * `join` that answers with the persisted log after the last seq we have, then live events. Token
 * deltas share the seq of the row they are stored in, so a live token with the seq we already have
 * extends it instead of being dropped as a duplicate. If the socket cannot connect, the caller's
 * polling fallback takes over (`connected` stays false).
 */
import { useEffect, useRef, useState } from "react";
import { io, type Socket } from "socket.io-client";

export interface RoomEvent<P = Record<string, unknown>> {
  seq: number;
  type: string;
  payload: P;
  at: string;
}

type JoinReply = { ok: true; events: RoomEvent[] } | { ok: false; error: string };

let shared: Socket | null = null;
function socket(): Socket {
  if (!shared) {
    const s = io({ transports: ["websocket"], withCredentials: true });
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

export function useRoom(
  room: string,
  enabled = true,
): { events: RoomEvent[]; connected: boolean; error: string | null } {
  const [events, setEvents] = useState<RoomEvent[]>([]);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const last = useRef<{ seq: number; type: string }>({ seq: 0, type: "" });

  useEffect(() => {
    if (!enabled) return;
    const s = socket();
    let joined = false;
    let buffered: RoomEvent[] = [];

    const accept = (batch: RoomEvent[]) => {
      const fresh: RoomEvent[] = [];
      for (const e of batch) {
        const extendsTokenRow = e.type === "token" && e.seq === last.current.seq && last.current.type === "token";
        if (e.seq <= last.current.seq && !extendsTokenRow) continue;
        last.current = { seq: e.seq, type: e.type };
        fresh.push(e);
      }
      if (fresh.length) setEvents((prev) => [...prev, ...fresh].slice(-MAX_EVENTS));
    };
    const onEvent = (e: RoomEvent & { room?: string }) => {
      if (e.room !== undefined && e.room !== room) return;
      if (joined) accept([e]);
      else buffered.push(e);
    };
    const join = () => {
      joined = false;
      s.emit("join", room, last.current.seq, (reply: JoinReply) => {
        if (!reply.ok) {
          setError(reply.error);
          return;
        }
        setConnected(true);
        setError(null);
        accept(reply.events);
        // Events that arrived while the log was read: reading it closed any open token row, so only
        // later seqs are new (deltas of that row are already in its stored text).
        const seen = last.current.seq;
        accept(buffered.filter((e) => e.seq > seen));
        buffered = [];
        joined = true;
      });
    };
    const onDisconnect = () => setConnected(false);
    // The server re-checks rights while connected: access lost → the room was left for us.
    const onRevoked = (r: string, reason: string) => {
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
      s.off("event", onEvent);
      s.off("connect", join);
      s.off("disconnect", onDisconnect);
      s.off("revoked", onRevoked);
      if (s.connected) s.emit("leave", room);
    };
  }, [room, enabled]);

  return { events, connected, error };
}
