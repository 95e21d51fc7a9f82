"use client";
/** Who is in the room: an avatar each, with what they look at in its title; and "hide my position". */
import { describeFocus, type PresentMember } from "@/server/shared/room-presence.ts";
import { Avatar } from "./avatar.tsx";
import { HidePositionToggle } from "./hide-position-toggle.tsx";

export function PresenceBar({ members, selfId }: { members: PresentMember[]; selfId: string | null }) {
  if (!members.length) return null;
  return (
    <div className="flex items-center">
      <PresenceAvatars members={members} selfId={selfId} />
      {/* A spectator (share link, selfId null) has no position to hide: it never says one. */}
      {selfId && <HidePositionToggle />}
    </div>
  );
}

function PresenceAvatars({ members, selfId }: { members: PresentMember[]; selfId: string | null }) {
  return (
    <ul className="flex items-center -space-x-1.5" aria-label="In this room">
      {members.map((m) => {
        const at = describeFocus(m.focus);
        const who = m.userId === selfId ? `${m.name} (you)` : m.name;
        return (
          <li key={m.userId} className="rounded-full ring-2 ring-white dark:ring-zinc-950">
            <Avatar id={m.userId} name={m.name} title={at ? `${who} — looking at ${at}` : who} />
          </li>
        );
      })}
    </ul>
  );
}

/** The avatars of those looking at one thing (a finding, a file), small, for its row. */
export function WatchersOf({ members }: { members: PresentMember[] }) {
  if (!members.length) return null;
  return (
    <span className="flex -space-x-1" aria-label={`Looking at this: ${members.map((m) => m.name).join(", ")}`}>
      {members.map((m) => (
        <Avatar key={m.userId} id={m.userId} name={m.name} className="size-5 text-[9px] ring-1 ring-white" />
      ))}
    </span>
  );
}
