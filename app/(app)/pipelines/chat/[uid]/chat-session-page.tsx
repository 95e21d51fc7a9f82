"use client";
/** /pipelines/chat/<session>: one chat session, linkable (every viewer of the workspace may open it). */
import { useParams } from "next/navigation";
import { ChatLayout } from "../_components/chat-layout.tsx";
import { SessionView } from "../_components/session-view.tsx";

export default function PipelineChatSessionPage() {
  const { uid } = useParams<{ uid: string }>();
  return (
    <ChatLayout selected={uid}>
      <SessionView key={uid} uid={uid} />
    </ChatLayout>
  );
}
