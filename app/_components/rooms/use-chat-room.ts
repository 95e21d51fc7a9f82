"use client";
/**
 * Joins a page's room once — every panel of the page shares this state — and says what the user looks
 * at (`focus`) to the others there. Its own module so a page can join its room without loading the
 * chat panel (and its Markdown) with it (app/(app)/pipelines: bench/pipeline-ui).
 */
import { useEffect } from "react";
import { type RoomState, useRoom } from "@/app/_lib/room.ts";
import type { Focus } from "@/server/shared/room-presence.ts";
import { type RoomKind, type RoomName, roomNameOrNull } from "@/server/shared/rooms.ts";
import { usePresence } from "./use-presence.ts";

export type ChatKind = Exclude<RoomKind, "review">;

export interface ChatRoom<K extends ChatKind> {
  room: RoomName<K> | null;
  state: RoomState<K>;
  presence: ReturnType<typeof usePresence>;
}

/** Joins the page's room (once: every panel of the page shares this state) and reports `focus`. */
export function useChatRoom<K extends ChatKind>(kind: K, uid: string, focus: Focus | null = null): ChatRoom<K> {
  const room = roomNameOrNull(kind, uid);
  const state = useRoom(room);
  const presence = usePresence(room, state);
  const { setFocus } = presence;
  // Compared by value inside setFocus, so a new object with the same place sends nothing.
  useEffect(() => {
    setFocus(focus);
  }, [setFocus, focus]);
  return { room, state, presence };
}
