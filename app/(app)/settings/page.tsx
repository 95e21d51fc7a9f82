import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import SettingsPage from "./settings-page.tsx";

/** Settings' first reads, for the user's current workspace (./settings-page.tsx and its cards ask
 * for the same): the members (./_components/members-card.tsx), the model providers
 * (app/_components/providers-settings.tsx) and the chat budget (app/_components/ask/chat-budget-settings.tsx).
 * Left to the browser: the invite links (their address is the browser's origin), Ollama's detection
 * (a probe of the network, not to be waited for) and the integrations (GitLab's webhook address is
 * the browser's origin too). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (!workspaceId) return;
  await Promise.all([
    fetch(trpc.workspaces.members.queryOptions({ workspaceId })),
    fetch(trpc.providers.list.queryOptions({ workspaceId })),
    fetch(trpc.ask.budget.queryOptions({ workspaceId })),
  ]);
}

/** Settings, with their first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <SettingsPage />
    </Prefetch>
  );
}
