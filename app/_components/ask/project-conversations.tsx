"use client";
/**
 * The project page's room: one join of `project:<uid>` shared by the team chat (where `@argus …`
 * asks Argus) and the conversations with Argus, plus the team findings written from answers.
 */
import { useCallback } from "react";
import { useRoom } from "@/app/_lib/room.ts";
import { roomNameOrNull } from "@/server/shared/rooms.ts";
import { codeHref } from "../review/format.ts";
import { ChatPanel } from "../rooms/chat-panel.tsx";
import { ConversationsPanel } from "./conversations-panel.tsx";
import { TeamFindings } from "./team-findings.tsx";

export function ProjectConversations({ projectUid, snapshotUid }: { projectUid: string; snapshotUid: string | null }) {
  const room = roomNameOrNull("project", projectUid);
  const state = useRoom(room);
  const link = useCallback(
    (path: string, line: number, endLine?: number) => codeHref(projectUid, snapshotUid, path, line, endLine),
    [projectUid, snapshotUid],
  );
  if (!room) return null;
  return (
    <div className="my-6 space-y-4">
      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <ConversationsPanel projectUid={projectUid} state={state} codeHref={link} />
        <ChatPanel room={room} state={state} codeLink={link} />
      </div>
      <TeamFindings projectUid={projectUid} />
    </div>
  );
}
