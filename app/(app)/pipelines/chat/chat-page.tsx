"use client";
/** /pipelines/chat: the workspace's chat sessions, and starting one with a pipeline that answers questions. */
import { ChatLayout } from "./_components/chat-layout.tsx";
import { NewChat } from "./_components/new-chat.tsx";

// No Suspense boundary around NewChat (it reads `?pipeline=`/`?gallery=`): every page renders per
// request, so useSearchParams never bails out to the client, and a boundary would only make React
// stream it apart from the page (shown by a script; app/(app)/projects/[uid]/project-page.tsx).
export default function PipelineChatPage() {
  return (
    <ChatLayout>
      <NewChat />
    </ChatLayout>
  );
}
