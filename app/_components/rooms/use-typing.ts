"use client";
/**
 * Typing in a room's chat (or one finding's thread): `signal()` on every keystroke says so to the
 * server at most every TYPING_SIGNAL_MS; the `typing` messages of the others are kept in a roster
 * (server/shared/room-typing.ts) until they expire or that person's message arrives.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import {
  nextExpiry,
  TYPING_SIGNAL_MS,
  typingAt,
  typingSignal,
  typingStopped,
  type TypingRoster,
} from "@/server/shared/room-typing.ts";
import type { ServerToClientEvents } from "@/server/shared/room-protocol.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";

type TypingInfo = Parameters<ServerToClientEvents["typing"]>[0];

export function useTyping<K extends RoomKind>(
  room: RoomName<K>,
  state: RoomState<K>,
  thread: string | null,
  /** null: a spectator (share link), who only sees others typing. */
  selfId: string | null,
) {
  const [roster, setRoster] = useState<TypingRoster>(new Map());
  const lastSignal = useRef(0);
  const { socket } = useRoomAccess();

  useEffect(() => {
    const s = socket();
    const onTyping = (t: TypingInfo) => {
      if (t.room !== room || t.thread !== thread || t.user.id === selfId) return;
      setRoster((r) => typingSignal(r, t.user, Date.now()));
    };
    s.on("typing", onTyping);
    return () => {
      s.off("typing", onTyping);
      setRoster(new Map());
    };
  }, [room, thread, selfId, socket]);

  // Drop each signal when it expires (one timer, for the earliest).
  useEffect(() => {
    const at = nextExpiry(roster);
    if (at === null) return;
    const timer = setTimeout(() => setRoster((r) => typingAt(r, Date.now())), Math.max(0, at - Date.now()) + 10);
    return () => clearTimeout(timer);
  }, [roster]);

  // A new message from someone: they stopped typing (an edit is no sign of that). Our own: the next
  // keystroke says so again at once.
  const seen = useRef<{ room: string; seq: number }>({ room, seq: 0 });
  useEffect(() => {
    if (seen.current.room !== room) seen.current = { room, seq: 0 };
    const fresh = state.events.filter((e) => e.seq > seen.current.seq);
    if (!fresh.length) return;
    seen.current = { room, seq: fresh[fresh.length - 1]!.seq };
    for (const e of fresh) {
      if (e.type !== "chat_message" || e.payload.thread !== thread || e.payload.version !== 1) continue;
      const author = e.payload.author.id;
      if (author === selfId) lastSignal.current = 0;
      else setRoster((r) => typingStopped(r, author));
    }
  }, [state.events, room, thread, selfId]);

  const signal = useCallback(() => {
    const now = Date.now();
    if (!state.connected || now - lastSignal.current < TYPING_SIGNAL_MS) return;
    lastSignal.current = now;
    // A refusal (too fast) needs no answer: the next keystroke tries again.
    socket().emit("chat.typing", { room, thread }, () => undefined);
  }, [room, thread, state.connected, socket]);

  const names = useMemo(() => [...roster.values()].map((t) => t.name), [roster]);
  return { names, signal };
}
