"use client";
/**
 * Presence in a room from the browser: who is there (the server's `presence` messages for the room)
 * and what this tab looks at, sent when it changes and again after every (re)join — not while the
 * user hides their position (the server would drop it anyway), and again once they show it. A
 * spectator (share link) is shown as a guest but never says what it looks at (the server refuses it).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import { type Focus, type PresentMember, sameFocus } from "@/server/shared/room-presence.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";
import { useHidePosition } from "./use-hide-position.ts";

export function usePresence<K extends RoomKind>(room: RoomName<K> | null, state: RoomState<K>) {
  const [members, setMembers] = useState<PresentMember[]>([]);
  const focus = useRef<Focus | null>(null);
  const { socket, readOnly } = useRoomAccess();
  const tells = !readOnly;
  // A spectator has no account, hence no preferences to read.
  const { hidden } = useHidePosition({ enabled: tells });

  useEffect(() => {
    if (!room) return;
    const s = socket();
    // The newest list wins (with several web nodes an older one can arrive after it).
    let latest = 0;
    const onPresence = (p: { room: string; members: PresentMember[]; version?: number }) => {
      if (p.room !== room) return;
      if (p.version !== undefined) {
        if (p.version < latest) return;
        latest = p.version;
      }
      setMembers(p.members);
    };
    s.on("presence", onPresence);
    return () => {
      s.off("presence", onPresence);
    };
  }, [room, socket]);

  // A re-join (after a reconnect) starts with no position, and so does showing it again: say it.
  useEffect(() => {
    if (tells && room && state.connected && !hidden && focus.current)
      socket().emit("presence.update", { room, focus: focus.current }, () => undefined);
  }, [room, state.connected, hidden, socket, tells]);

  const setFocus = useCallback(
    (next: Focus | null) => {
      if (!tells || !room || sameFocus(focus.current, next)) return;
      focus.current = next;
      if (state.connected && !hidden) socket().emit("presence.update", { room, focus: next }, () => undefined);
    },
    [room, state.connected, hidden, socket, tells],
  );

  return { members, setFocus };
}
