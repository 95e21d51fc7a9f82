import { currentWorkspace } from "@/app/_lib/current-workspace.ts";
import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import DashboardPage from "./dashboard.tsx";

/** The dashboard's reads, for the user's current workspace (./dashboard.tsx asks for the same). */
async function load({ trpc, fetch }: PageLoad) {
  const workspace = currentWorkspace(await fetch(trpc.account.me.queryOptions()));
  if (!workspace) return;
  const workspaceId = workspace.id;
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
