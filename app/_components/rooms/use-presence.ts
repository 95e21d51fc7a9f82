"use client";
/**
 * Presence in a room from the browser: who is there (the server's `presence` messages for the room)
 * and what this tab looks at, sent when it changes and again after every (re)join — not while the
 * user hides their position (the server would drop it anyway), and again once they show it.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { roomSocket, type RoomState } from "@/app/_lib/room.ts";
import { type Focus, type PresentMember, sameFocus } from "@/server/shared/room-presence.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";
import { useHidePosition } from "./use-hide-position.ts";

export function usePresence<K extends RoomKind>(room: RoomName<K> | null, state: RoomState<K>) {
  const [members, setMembers] = useState<PresentMember[]>([]);
  const focus = useRef<Focus | null>(null);
  const { hidden } = useHidePosition();

  useEffect(() => {
    if (!room) return;
    const s = roomSocket();
    const onPresence = (p: { room: string; members: PresentMember[] }) => {
      if (p.room === room) setMembers(p.members);
    };
    s.on("presence", onPresence);
    return () => {
      s.off("presence", onPresence);
    };
  }, [room]);

  // A re-join (after a reconnect) starts with no position, and so does showing it again: say it.
  useEffect(() => {
    if (room && state.connected && !hidden && focus.current)
      roomSocket().emit("presence.update", { room, focus: focus.current }, () => undefined);
  }, [room, state.connected, hidden]);

  const setFocus = useCallback(
    (next: Focus | null) => {
      if (!room || sameFocus(focus.current, next)) return;
      focus.current = next;
      if (state.connected && !hidden) roomSocket().emit("presence.update", { room, focus: next }, () => undefined);
    },
    [room, state.connected, hidden],
  );

  return { members, setFocus };
}
