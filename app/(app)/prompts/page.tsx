import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PromptsPage from "./prompts-page.tsx";

/** The prompts list's read, for the user's current workspace (./prompts-page.tsx asks for the same). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (workspaceId) await fetch(trpc.prompts.list.queryOptions({ workspaceId }));
}

/** The prompts list, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <PromptsPage />
    </Prefetch>
  );
}
