"use client";
/** The unread count beside the sidebar's Inbox item (nothing when all is read); read out as "N unread". */
import { useUnreadCount } from "@/app/_lib/inbox.ts";

export function UnreadBadge() {
  const count = useUnreadCount();
  if (count === 0) return null;
  return (
    <span className="ml-auto rounded-full bg-brand-600 px-1.5 text-[11px] font-semibold leading-5 text-white">
      <span aria-hidden>{count > 99 ? "99+" : count}</span>
      <span className="sr-only">{count} unread</span>
    </span>
  );
}
