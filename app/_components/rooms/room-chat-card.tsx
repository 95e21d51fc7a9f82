"use client";
/**
 * The team's chat of a page that has no live view of its own (a project, a knowledge base): joins the
 * page's room, shows who is there (with "hide my position") beside the title, and says what the user
 * looks at when the page knows (`focus`). The review page joins its room for the activity log and
 * uses ChatPanel and PresenceBar directly; every room's chat is this same panel. A page that shows
 * more of the room than its chat (the project's conversations with Argus) joins it once with
 * `useChatRoom` and hands the state to both.
 */
import { useEffect } from "react";
import { type RoomState, useRoom } from "@/app/_lib/room.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import type { Focus } from "@/server/shared/room-presence.ts";
import { type RoomKind, type RoomName, roomNameOrNull } from "@/server/shared/rooms.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { ChatPanel } from "./chat-panel.tsx";
import { PresenceBar } from "./presence-bar.tsx";
import { usePresence } from "./use-presence.ts";

type ChatKind = Exclude<RoomKind, "review">;

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

/** The chat of a room joined with useChatRoom, with who is there beside its title. */
export function ChatCard<K extends ChatKind>({
  chat,
  codeLink,
  className,
}: {
  chat: ChatRoom<K>;
  codeLink?: CodeLink;
  className?: string;
}) {
  const { user } = useWorkspace();
  if (!chat.room) return null;
  return (
    <ChatPanel
      room={chat.room}
      state={chat.state}
      codeLink={codeLink}
      className={className}
      actions={<PresenceBar members={chat.presence.members} selfId={user.id} />}
    />
  );
}

export function RoomChatCard({
  kind,
  uid,
  focus = null,
  codeLink,
  className,
}: {
  kind: ChatKind;
  uid: string;
  focus?: Focus | null;
  codeLink?: CodeLink;
  className?: string;
}) {
  const chat = useChatRoom(kind, uid, focus);
  return <ChatCard chat={chat} codeLink={codeLink} className={className} />;
}
