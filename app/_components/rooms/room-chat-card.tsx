"use client";
/**
 * The team's chat of a page that has no live view of its own (a project, a knowledge base): joins the
 * page's room, shows who is there (with "hide my position") beside the title, and says what the user
 * looks at when the page knows (`focus`). The review page joins its room for the activity log and
 * uses ChatPanel and PresenceBar directly; every room's chat is this same panel.
 */
import { useEffect } from "react";
import { useRoom } from "@/app/_lib/room.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import type { Focus } from "@/server/shared/room-presence.ts";
import { type RoomKind, roomNameOrNull } from "@/server/shared/rooms.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { ChatPanel } from "./chat-panel.tsx";
import { PresenceBar } from "./presence-bar.tsx";
import { usePresence } from "./use-presence.ts";

export function RoomChatCard({
  kind,
  uid,
  focus = null,
  codeLink,
  className,
}: {
  kind: Exclude<RoomKind, "review">;
  uid: string;
  focus?: Focus | null;
  codeLink?: CodeLink;
  className?: string;
}) {
  const room = roomNameOrNull(kind, uid);
  const state = useRoom(room);
  const presence = usePresence(room, state);
  const { user } = useWorkspace();
  const { setFocus } = presence;
  // Compared by value inside setFocus, so a new object with the same place sends nothing.
  useEffect(() => {
    setFocus(focus);
  }, [setFocus, focus]);
  if (!room) return null;
  return (
    <ChatPanel
      room={room}
      state={state}
      codeLink={codeLink}
      className={className}
      actions={<PresenceBar members={presence.members} selfId={user.id} />}
    />
  );
}
