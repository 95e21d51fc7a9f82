import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import DashboardPage from "./dashboard.tsx";

/** The dashboard's reads, for the user's current workspace (./dashboard.tsx asks for the same). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (!workspaceId) return;
  await Promise.all([
    fetch(trpc.projects.list.queryOptions({ workspaceId })),
    fetch(trpc.prompts.list.queryOptions({ workspaceId })),
    fetch(trpc.workspaces.members.queryOptions({ workspaceId })),
    fetch(trpc.reviews.list.queryOptions({ workspaceId, limit: 8 })),
  ]);
}

/** The dashboard, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <DashboardPage />
    </Prefetch>
  );
}
