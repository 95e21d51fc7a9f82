import { currentWorkspace } from "@/app/_lib/current-workspace.ts";
import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import KnowledgePage from "./knowledge-page.tsx";

/** The knowledge bases list's read, for the user's current workspace (./knowledge-page.tsx asks for
 * the same). */
async function load({ trpc, fetch }: PageLoad) {
  const workspace = currentWorkspace(await fetch(trpc.account.me.queryOptions()));
  if (workspace) await fetch(trpc.knowledge.list.queryOptions({ workspaceId: workspace.id }));
}

/** The knowledge bases list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <KnowledgePage />
    </Prefetch>
  );
}
