"use client";
/**
 * The project page's room: one join of `project:<uid>` shared by the team chat (where `@argus …`
 * asks Argus, and who is there shows beside its title) and the conversations with Argus, plus the
 * team findings written from answers. Before the project has code to answer over, only the chat.
 */
import { useCallback } from "react";
import type { Focus } from "@/server/shared/room-presence.ts";
import { codeHref } from "../review/format.ts";
import { ChatCard } from "../rooms/room-chat-card.tsx";
import { useChatRoom } from "../rooms/use-chat-room.ts";
import { ConversationsPanel } from "./conversations-panel.tsx";
import { TeamFindings } from "./team-findings.tsx";

export function ProjectConversations({
  projectUid,
  snapshotUid,
  ready,
  focus,
}: {
  projectUid: string;
  /** The snapshot the code viewer shows (citations and chat links open it). */
  snapshotUid: string | null;
  /** The project has imported code: Argus can answer. */
  ready: boolean;
  /** What the user looks at (the file open in the code viewer). */
  focus: Focus | null;
}) {
  const chat = useChatRoom("project", projectUid, focus);
  const link = useCallback(
    (path: string, line: number, endLine?: number) => codeHref(projectUid, snapshotUid, path, line, endLine),
    [projectUid, snapshotUid],
  );
  if (!chat.room) return null;
  if (!ready) return <ChatCard chat={chat} codeLink={link} className="my-6 block max-w-3xl" />;
  return (
    <div className="my-6 space-y-4">
      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <ConversationsPanel projectUid={projectUid} state={chat.state} codeHref={link} />
        <ChatCard chat={chat} codeLink={link} />
      </div>
      <TeamFindings projectUid={projectUid} />
    </div>
  );
}
