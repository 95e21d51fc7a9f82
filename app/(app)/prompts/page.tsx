import { currentWorkspace } from "@/app/_lib/current-workspace.ts";
import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PromptsPage from "./prompts-page.tsx";

/** The prompts list's read, for the user's current workspace (./prompts-page.tsx asks for the same). */
async function load({ trpc, fetch }: PageLoad) {
  const workspace = currentWorkspace(await fetch(trpc.account.me.queryOptions()));
  if (workspace) await fetch(trpc.prompts.list.queryOptions({ workspaceId: workspace.id }));
}

/** The prompts list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <PromptsPage />
    </Prefetch>
  );
}
