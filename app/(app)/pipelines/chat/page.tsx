import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PipelineChatPage from "./chat-page.tsx";

/** The pipeline chat's first reads, for the user's current workspace: the sessions
 * (./_components/chat-layout.tsx) and the pipelines one can chat with (./_components/new-chat.tsx),
 * as ./chat-page.tsx asks for them. */
async function load({ trpc, fetch, workspaceId: current }: PageLoad) {
  const workspaceId = await current();
  if (!workspaceId) return;
  await Promise.all([
    fetch(trpc.pipelineChat.sessions.queryOptions({ workspaceId })),
    fetch(trpc.pipelineChat.pipelines.queryOptions({ workspaceId })),
  ]);
}

/** The pipeline chat, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default function Page() {
  return (
    <Prefetch load={load}>
      <PipelineChatPage />
    </Prefetch>
  );
}
