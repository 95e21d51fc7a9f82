"use client";
/**
 * The inbox's unread count, live: loaded once (notifications.unreadCount), then set by every
 * `notification` message the server pushes to this user's sockets (server/realtime/user-sockets.ts),
 * and loaded again after a reconnect (a push missed while offline is not replayed). A push also makes
 * an open inbox page load again, so the new item shows at the top.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { roomSocket } from "@/app/_lib/room.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import type { NotificationPush } from "@/server/shared/notifications.ts";

export function useUnreadCount(): number {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const count = useQuery({ ...trpc.notifications.unreadCount.queryOptions(), staleTime: 60_000 });

  useEffect(() => {
    const socket = roomSocket();
    const key = trpc.notifications.unreadCount.queryKey();
    const onPush = ({ unread }: NotificationPush) => {
      queryClient.setQueryData(key, { count: unread });
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

  return count.data?.count ?? 0;
}

/** An inbox link, switched to its workspace first when that is not the current one (`?workspace=`). */
export function inWorkspace(link: string, workspaceId: string, currentId: string): string {
  if (workspaceId === currentId) return link;
  const hashAt = link.indexOf("#");
  const [path, hash] = hashAt < 0 ? [link, ""] : [link.slice(0, hashAt), link.slice(hashAt)];
  return `${path}${path.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(workspaceId)}${hash}`;
}
