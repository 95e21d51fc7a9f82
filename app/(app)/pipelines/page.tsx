import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PipelinesPage from "./pipelines-page.tsx";

/** The pipelines page's read, for the user's current workspace: its own pipelines and the gallery's
 * (./pipelines-page.tsx asks for the same; `?q=` and `?tag=` filter them in the browser). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (workspaceId) await fetch(trpc.pipelines.list.queryOptions({ workspaceId }));
}

/** The pipelines page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <PipelinesPage />
    </Prefetch>
  );
}
