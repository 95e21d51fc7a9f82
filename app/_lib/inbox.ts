"use client";
/**
 * The inbox's unread count: loaded once (notifications.unreadCount), then kept current by
 * `useInboxPushes`, mounted once in the app shell — so every reader shares one query and one
 * socket subscription.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { roomSocket } from "@/app/_lib/room.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import type { NotificationPush } from "@/server/shared/notifications.ts";

export function useUnreadCount(): number {
  const trpc = useTRPC();
  const count = useQuery({ ...trpc.notifications.unreadCount.queryOptions(), staleTime: 60_000 });
  return count.data?.count ?? 0;
}

/**
 * Sets the count from every `notification` message the server pushes to this user's sockets
 * (server/realtime/user-sockets.ts), and loads it again after a reconnect (a push missed while
 * offline is not replayed). A push also makes an open inbox page load again, so the new item shows
 * at the top. Mount once (AppShell).
 */
export function useInboxPushes(): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useEffect(() => {
    const socket = roomSocket();
    const key = trpc.notifications.unreadCount.queryKey();
    const onPush = ({ unread }: NotificationPush) => {
      queryClient.setQueryData(key, { count: unread });
      // And load it again: a load still in flight (the page's first, say) began before this
      // notification and would otherwise land after the push with the older count.
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() });
    };
    const onConnect = () => void queryClient.invalidateQueries({ queryKey: key });
    socket.on("notification", onPush);
    socket.on("connect", onConnect);
    return () => {
      socket.off("notification", onPush);
      socket.off("connect", onConnect);
    };
  }, [trpc, queryClient]);
}

/** An inbox link, switched to its workspace first when that is not the current one (`?workspace=`). */
export function inWorkspace(link: string, workspaceId: string, currentId: string): string {
  if (workspaceId === currentId) return link;
  const hashAt = link.indexOf("#");
  const [path, hash] = hashAt < 0 ? [link, ""] : [link.slice(0, hashAt), link.slice(hashAt)];
  return `${path}${path.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(workspaceId)}${hash}`;
}
