"use client";
/**
 * The team's chat of a page that has no live view of its own (a project, a knowledge base): joins the
 * page's room, shows who is there (with "hide my position") beside the title, and says what the user
 * looks at when the page knows (`focus`). The review page joins its room for the activity log and
 * uses ChatPanel and PresenceBar directly; every room's chat is this same panel. A page that shows
 * more of the room than its chat (the project's conversations with Argus) joins it once with
 * `useChatRoom` and hands the state to both.
 */
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import type { Focus } from "@/server/shared/room-presence.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { ChatPanel } from "./chat-panel.tsx";
import { PresenceBar } from "./presence-bar.tsx";
import { useChatRoom, type ChatKind, type ChatRoom } from "./use-chat-room.ts";

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
