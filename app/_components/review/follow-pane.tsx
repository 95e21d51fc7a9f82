"use client";
/**
 * "Follow the agent": a code pane with the file and lines the agent is reading or searching at the
 * moment shown (live, or the replay's moment), read through the snapshot file procedure (the same
 * Sandbox the agent used). Where it looks is server/shared/follow-target.ts; whether to follow is
 * each user's choice, off by default, kept in this browser.
 */
import dynamic from "next/dynamic";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Eye } from "lucide-react";
import { useCallback, useSyncExternalStore } from "react";
import { Card, cx } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import type { FollowTarget } from "@/server/shared/follow-target.ts";
import { codeHref } from "./format.ts";

// The code viewer (highlight.js) shows only when following is on and the agent has opened a file:
// its own chunk, not part of the review page's first load.
const CodeViewer = dynamic(() => import("@/app/_components/code-viewer.tsx").then((m) => m.CodeViewer), {
  ssr: false,
});

const key = (userId: string) => `argus:follow-agent:${userId}`;
const listeners = new Set<() => void>();
const subscribe = (fn: () => void) => {
  listeners.add(fn);
  window.addEventListener("storage", fn);
  return () => {
    listeners.delete(fn);
    window.removeEventListener("storage", fn);
  };
};

function read(userId: string): boolean {
  try {
    return window.localStorage.getItem(key(userId)) === "on";
  } catch {
    return false; // storage blocked: follow stays off
  }
}

/** Whether this user follows the agent (off by default), remembered in localStorage per user. */
export function useFollowSetting(userId: string): [boolean, (on: boolean) => void] {
  const on = useSyncExternalStore(
    subscribe,
    () => read(userId),
    () => false,
  );
  const set = useCallback(
    (value: boolean) => {
      try {
        if (value) window.localStorage.setItem(key(userId), "on");
        else window.localStorage.removeItem(key(userId));
      } catch {
        // storage blocked: the choice lasts until the page is left
      }
      for (const fn of listeners) fn();
    },
    [userId],
  );
  return [on, set];
}

export function FollowToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <button
      type="button"
      aria-pressed={on}
      onClick={() => onChange(!on)}
      title="Show the code the agent is looking at"
      className={cx(
        "inline-flex items-center gap-1 rounded-md border px-2 py-0.5 text-xs",
        on
          ? "border-brand-600 bg-brand-600 text-white"
          : "border-zinc-300 text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800",
      )}
    >
      <Eye className="size-3.5" aria-hidden /> Follow
    </button>
  );
}

export function FollowPane({
  target,
  projectUid,
  snapshotUid,
}: {
  target: FollowTarget | null;
  projectUid: string;
  snapshotUid: string | null;
}) {
  const trpc = useTRPC();
  const tree = useQuery({
    ...trpc.snapshots.tree.queryOptions({ snapshotUid: snapshotUid ?? "" }),
    enabled: !!snapshotUid,
    staleTime: Infinity,
  });
  // Only paths that are files of the snapshot are asked for (the model may name folders or nothing).
  const entry = target ? tree.data?.find((f) => f.path === target.path) : undefined;
  const file = useQuery({
    ...trpc.snapshots.file.queryOptions({ snapshotUid: snapshotUid ?? "", path: entry?.path ?? "" }),
    enabled: !!snapshotUid && !!entry,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });

  let body;
  if (!snapshotUid) body = <p className="text-sm text-zinc-500">This review has no code snapshot to show.</p>;
  else if (!target) body = <p className="text-sm text-zinc-500">The agent has not opened a file yet.</p>;
  else if (tree.data && !entry)
    body = <p className="text-sm text-zinc-500">{target.path} is not a file of this snapshot.</p>;
  else if (file.isError) body = <p className="text-sm text-red-600">{errorInfo(file.error).message}</p>;
  else if (!file.data) body = <p className="text-sm text-zinc-500">Loading {target.path}…</p>;
  else
    body = (
      <CodeViewer
        content={file.data.content}
        language={entry?.language ?? ""}
        line={target.focus}
        ranges={target.ranges}
        boxClassName="max-h-96"
        linkFor={(n) => codeHref(projectUid, snapshotUid, target.path, n)}
      />
    );

  return (
    <Card className="mt-4 p-4">
      <section aria-label="Following the agent">
        <h2 className="mb-2 flex min-w-0 flex-wrap items-baseline gap-x-2 text-sm font-semibold">
          Following the agent
          {target && (
            <span className="min-w-0 break-all font-mono text-xs font-normal text-zinc-600 dark:text-zinc-400">
              <span data-follow-path>{target.path}</span> · {target.tool}: {target.label}
            </span>
          )}
        </h2>
        {body}
      </section>
    </Card>
  );
}
