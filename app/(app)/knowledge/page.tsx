import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import KnowledgePage from "./knowledge-page.tsx";

/** The knowledge bases list's read, for the user's current workspace (./knowledge-page.tsx asks for
 * the same). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (workspaceId) await fetch(trpc.knowledge.list.queryOptions({ workspaceId }));
}

/** The knowledge bases list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <KnowledgePage />
    </Prefetch>
  );
}
