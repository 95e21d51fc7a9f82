import { Prefetch, type PageLoad } from "@/app/_lib/server-prefetch.tsx";
import PipelineChatSessionPage from "./chat-session-page.tsx";

/** A chat session's first reads (./chat-session-page.tsx asks for the same): the workspace's sessions
 * (../_components/chat-layout.tsx) and this one (../_components/session-view.tsx). */
async function load({ trpc, fetch, workspaceId: current }: PageLoad, uid: string) {
  await Promise.all([
    fetch(trpc.pipelineChat.get.queryOptions({ uid })),
    current().then((workspaceId) =>
      workspaceId ? fetch(trpc.pipelineChat.sessions.queryOptions({ workspaceId })) : null,
    ),
  ]);
}

/** A chat session's page, with its first data in the HTML (app/_lib/server-prefetch.tsx). */
export default async function Page({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Prefetch load={(l) => load(l, uid)}>
      <PipelineChatSessionPage />
    </Prefetch>
  );
}
