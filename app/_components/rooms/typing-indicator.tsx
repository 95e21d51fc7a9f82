"use client";
/** "Ann is typing…" under a chat, announced politely to screen readers. */
import { describeTyping } from "@/server/shared/room-typing.ts";

export function TypingIndicator({ names }: { names: string[] }) {
  return (
    <p className="mt-1 min-h-4 text-xs italic text-zinc-500" aria-live="polite" data-testid="typing">
      {describeTyping(names)}
    </p>
  );
}
