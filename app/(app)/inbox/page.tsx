import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import { nextCursor } from "@/app/_lib/next-cursor.ts";
import { NOTIFICATION_PAGE } from "@/server/shared/notifications.ts";
import InboxPage from "./inbox-page.tsx";

/** The inbox's first read (./inbox-page.tsx asks for the same): the first page of all the user's
 * notifications ("All", where the page opens; not `unreadOnly`). */
async function load({ trpc, fetchInfinite }: PageLoad) {
  await fetchInfinite(
    trpc.notifications.list.infiniteQueryOptions(
      { limit: NOTIFICATION_PAGE, unreadOnly: false },
      { getNextPageParam: nextCursor },
    ),
  );
}

/** The inbox, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <InboxPage />
    </Prefetch>
  );
}
