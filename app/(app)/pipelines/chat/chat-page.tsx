"use client";
/** /pipelines/chat: the workspace's chat sessions, and starting one with a pipeline that answers questions. */
import { ChatLayout } from "./_components/chat-layout.tsx";
import { NewChat } from "./_components/new-chat.tsx";

// No Suspense boundary around NewChat, though it reads useSearchParams: see app/(app)/projects/[uid]/project-page.tsx.
export default function PipelineChatPage() {
  return (
    <ChatLayout>
      <NewChat />
    </ChatLayout>
  );
}
