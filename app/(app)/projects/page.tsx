import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import ProjectsPage from "./projects-page.tsx";

/** The projects list's read, for the user's current workspace (./projects-page.tsx asks for the same). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (workspaceId) await fetch(trpc.projects.list.queryOptions({ workspaceId }));
}

/** The projects list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <ProjectsPage />
    </Prefetch>
  );
}
