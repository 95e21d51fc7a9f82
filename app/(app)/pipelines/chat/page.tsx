"use client";
/** /pipelines/chat: the workspace's chat sessions, and starting one with a pipeline that answers questions. */
import { Suspense } from "react";
import { ChatLayout } from "./_components/chat-layout.tsx";
import { NewChat } from "./_components/new-chat.tsx";

export default function PipelineChatPage() {
  return (
    <ChatLayout>
      <Suspense>
        <NewChat />
      </Suspense>
    </ChatLayout>
  );
}
