"use client";
/**
 * The inbox: mentions, replies in threads one wrote in, and the end of reviews one started — newest
 * first, from every workspace one is in. Each item links to the moment it is about (opening it marks it
 * read); unread ones can be marked read one by one or all at once. ↑/↓ move between items. An item's
 * text quotes a chat message: it is rendered as one line of Markdown (emphasis, code, mention chips).
 */
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { AtSign, CheckCheck, CircleCheck, CircleX, Inbox, MessagesSquare } from "lucide-react";
import Link from "next/link";
import { type KeyboardEvent, useState } from "react";
import { toast } from "sonner";
import { formatDate } from "@/app/_components/review/format.ts";
import { Button, Card, DelayedSkeleton, EmptyState, PageHeader, cx } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { Markdown } from "@/app/_components/review/markdown.tsx";
import { inWorkspace, useUnreadCount } from "@/app/_lib/inbox.ts";
import { nextCursor } from "@/app/_lib/next-cursor.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { NOTIFICATION_PAGE, type NotificationKind, type NotificationView } from "@/server/shared/notifications.ts";
import { safeLinkUrl } from "@/server/shared/safe-links.ts";

const KIND: Record<NotificationKind, { label: string; Icon: typeof AtSign; tone: string }> = {
  mention: { label: "Mention", Icon: AtSign, tone: "text-brand-600" },
  thread_reply: { label: "Thread reply", Icon: MessagesSquare, tone: "text-sky-600" },
  review_finished: { label: "Review finished", Icon: CircleCheck, tone: "text-green-600" },
  review_failed: { label: "Review failed", Icon: CircleX, tone: "text-red-600" },
};

/** ↑/↓ from one item's link to the next one's. */
function moveFocus(e: KeyboardEvent<HTMLUListElement>) {
  if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
  const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>("a[data-item]")];
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  if (at < 0) return;
  e.preventDefault();
  links[Math.max(0, Math.min(links.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)))]?.focus();
}

export default function InboxPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace, workspaces } = useWorkspace();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const unread = useUnreadCount();
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const list = useInfiniteQuery(
    trpc.notifications.list.infiniteQueryOptions(
      { limit: NOTIFICATION_PAGE, unreadOnly },
      { getNextPageParam: nextCursor },
    ),
  );
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];

  const settled = {
    onSuccess: (r: { unread: number }) => {
      queryClient.setQueryData(trpc.notifications.unreadCount.queryKey(), { count: r.unread });
      void queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() });
    },
    onError: (err: unknown) => toast.error(errorInfo(err).message),
  };
  const markRead = useMutation(trpc.notifications.markRead.mutationOptions(settled));
  const markAll = useMutation(trpc.notifications.markAllRead.mutationOptions(settled));

  const open = (n: NotificationView) => {
    if (!n.read) markRead.mutate({ ids: [n.id] });
  };

  return (
    <>
      <PageHeader
        title="Inbox"
        description="Mentions, replies in threads you wrote in, and reviews you started that finished or failed."
        actions={
          <Button variant="secondary" disabled={unread === 0} busy={markAll.isPending} onClick={() => markAll.mutate()}>
            <CheckCheck className="size-4" aria-hidden /> Mark all read
          </Button>
        }
      />
      <div className="mb-4 flex gap-1 text-sm" role="group" aria-label="Show">
        {[
          [false, "All"],
          [true, `Unread${unread ? ` (${unread})` : ""}`],
        ].map(([value, label]) => (
          <button
            key={String(value)}
            type="button"
            aria-pressed={unreadOnly === value}
            onClick={() => setUnreadOnly(value as boolean)}
            className={cx(
              "rounded-md px-2.5 py-1",
              unreadOnly === value
                ? "bg-zinc-200 font-medium dark:bg-zinc-800"
                : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800/60",
            )}
          >
            {label as string}
          </button>
        ))}
      </div>
      {list.isPending && <DelayedSkeleton />}
      <QueryError query={list} />
      {list.data && items.length === 0 && (
        <EmptyState icon={<Inbox className="size-8" />} title={unreadOnly ? "All read" : "Nothing here yet"}>
          {unreadOnly
            ? "Every notification is read."
            : "When a teammate mentions you in a chat, replies in a thread you wrote in, or a review you started ends, it shows here."}
        </EmptyState>
      )}
      {items.length > 0 && (
        <Card>
          <ul
            aria-label="Notifications"
            className="divide-y divide-zinc-200 dark:divide-zinc-800"
            onKeyDown={moveFocus}
          >
            {items.map((n) => {
              const { label, Icon, tone } = KIND[n.kind];
              const target = safeLinkUrl(n.link)?.startsWith("/") ? n.link : null;
              return (
                <li
                  key={n.id}
                  data-unread={!n.read || undefined}
                  className={cx("flex items-start gap-3 px-4 py-3", !n.read && "bg-brand-50/40 dark:bg-brand-900/10")}
                >
                  <Icon className={cx("mt-0.5 size-4 shrink-0", tone)} aria-label={label} />
                  <div className="min-w-0 flex-1">
                    {target ? (
                      <Link
                        data-item
                        href={inWorkspace(target, n.workspace.id, workspace.id)}
                        onClick={() => open(n)}
                        className={cx("block break-words text-sm hover:underline", !n.read && "font-medium")}
                      >
                        <Markdown inline className="">
                          {n.text}
                        </Markdown>
                      </Link>
                    ) : (
                      <p className="break-words text-sm">
                        <Markdown inline className="">
                          {n.text}
                        </Markdown>
                      </p>
                    )}
                    <p className="mt-0.5 text-xs text-zinc-500">
                      <span className="sr-only">{n.read ? "Read" : "Unread"} · </span>
                      {label} · <time dateTime={n.createdAt}>{formatDate(n.createdAt, local)}</time>
                      {workspaces.length > 1 && ` · ${n.workspace.name}`}
                    </p>
                  </div>
                  {!n.read && (
                    <Button
                      variant="ghost"
                      className="px-2 py-1 text-xs"
                      aria-label={`Mark read: ${n.text}`}
                      onClick={() => markRead.mutate({ ids: [n.id] })}
                    >
                      Mark read
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
        </Card>
      )}
      {list.hasNextPage && (
        <div className="mt-4 text-center">
          <Button variant="secondary" busy={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
            Load more
          </Button>
        </div>
      )}
    </>
  );
}
