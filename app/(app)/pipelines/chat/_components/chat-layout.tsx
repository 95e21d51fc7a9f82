"use client";
/**
 * The chat pages' frame: the workspace's sessions on the left (the most recently active first, the
 * open one marked, "New chat" on top), the open session or the new-chat form beside them.
 */
import { useQuery } from "@tanstack/react-query";
import { MessageSquarePlus } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { BackLink, cx, DelayedSkeleton } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { CHAT_HOME, chatHref } from "./types.ts";

function SessionList({ selected }: { selected?: string }) {
  const trpc = useTRPC();
  const { workspace, canEdit } = useWorkspace();
  const sessions = useQuery(trpc.pipelineChat.sessions.queryOptions({ workspaceId: workspace.id }));
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  return (
    <nav aria-label="Chat sessions" className="min-w-0 space-y-2">
      {canEdit && (
        <Link
          href={CHAT_HOME}
          className="flex items-center gap-1.5 rounded-md border border-zinc-200 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-800 dark:hover:bg-zinc-800/60"
        >
          <MessageSquarePlus className="size-4" aria-hidden /> New chat
        </Link>
      )}
      {sessions.isPending ? (
        <DelayedSkeleton rows={3} />
      ) : sessions.isError ? (
        <QueryError query={sessions} />
      ) : sessions.data.length === 0 ? (
        <p className="px-1 text-sm text-zinc-500">No sessions yet.</p>
      ) : (
        <ul className="space-y-1" aria-label="Sessions">
          {sessions.data.map((s) => (
            <li key={s.uid}>
              <Link
                href={chatHref(s.uid)}
                aria-current={s.uid === selected ? "page" : undefined}
                className={cx(
                  "block rounded-md px-3 py-2 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800/60",
                  s.uid === selected && "bg-zinc-100 dark:bg-zinc-800",
                )}
              >
                <span className="block truncate font-medium">{s.title}</span>
                <span className="block truncate text-xs text-zinc-500">
                  {s.pipelineTitle} · {s.mine ? "you" : (s.createdBy ?? "someone")} · {formatDate(s.updatedAt, local)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

export function ChatLayout({ selected, children }: { selected?: string; children: ReactNode }) {
  return (
    <>
      <BackLink href="/pipelines">Pipelines</BackLink>
      <div className="grid gap-6 md:grid-cols-[16rem_1fr]">
        <SessionList {...(selected ? { selected } : {})} />
        <div className="min-w-0">{children}</div>
      </div>
    </>
  );
}
