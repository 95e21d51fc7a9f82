"use client";
/**
 * Where a question is typed: Enter sends, Shift+Enter starts a new line. Once the session has an
 * answer, follow-ups go to the model with the conversation; "Run the whole pipeline" sends the next
 * question through every step again (new retrieval, new sources).
 */
import { Send } from "lucide-react";
import { useId, useState, type KeyboardEvent } from "react";
import { Button, FormError } from "@/app/_components/ui.tsx";
import { MAX_CHAT_MESSAGE } from "@/server/shared/pipeline-chat.ts";

export function Composer({
  busy,
  disabled,
  followUp,
  error,
  onSend,
}: {
  busy: boolean;
  /** A turn is running: the next question waits for it. */
  disabled: boolean;
  followUp: boolean;
  error: string | null;
  onSend: (text: string, fullPipeline: boolean) => Promise<boolean>;
}) {
  const [text, setText] = useState("");
  const [full, setFull] = useState(false);
  const id = useId();
  const tooLong = text.length > MAX_CHAT_MESSAGE;
  const empty = text.trim() === "";

  async function send() {
    if (busy || disabled || empty || tooLong) return;
    if (await onSend(text.trim(), full)) {
      setText("");
      setFull(false);
    }
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  }

  return (
    <form
      className="mt-4 space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Your question
      </label>
      <textarea
        id={id}
        value={text}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        placeholder={followUp ? "Ask a follow-up…" : "Ask the pipeline a question…"}
        aria-invalid={tooLong || Boolean(error) || undefined}
        aria-describedby={`${id}-hint`}
        className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-xs placeholder:text-zinc-400 focus:border-brand-500 focus:ring-2 focus:ring-brand-500/30 focus:outline-none aria-invalid:border-red-500 dark:border-zinc-700 dark:bg-zinc-900"
      />
      <FormError
        message={
          tooLong
            ? `Keep a message under ${MAX_CHAT_MESSAGE.toLocaleString("en")} characters (${text.length.toLocaleString("en")} now).`
            : error
        }
      />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p id={`${id}-hint`} className="text-xs text-zinc-500">
          Enter sends · Shift+Enter for a new line
          {disabled ? " · waiting for the answer" : ""}
        </p>
        <div className="flex items-center gap-3">
          {followUp && (
            <label className="flex items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-300">
              <input type="checkbox" checked={full} onChange={(e) => setFull(e.target.checked)} />
              Run the whole pipeline
            </label>
          )}
          <Button type="submit" busy={busy} disabled={disabled || empty || tooLong}>
            <Send className="size-4" aria-hidden /> Send
          </Button>
        </div>
      </div>
    </form>
  );
}
