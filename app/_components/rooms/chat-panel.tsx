"use client";
/**
 * A room's team chat (or, with `thread`, one finding's thread): messages rendered as sanitized
 * Markdown with `path:line` links to the code viewer, edit and delete of one's own messages (earlier
 * texts viewable), reactions (message-reactions.tsx), older pages on request, who is typing
 * (typing-indicator.tsx), @mentions with autocomplete (mention-autocomplete.tsx), a `#chat-<id>` link
 * landing on its message (use-chat-anchor.ts), Argus's answer under an `@argus …` message
 * (chat-answer.tsx), and a composer that says why a message was refused — or, for a spectator
 * (share link), why it is off (a spectator reads: no reactions, no typing, no earlier texts).
 */
import { Pencil, Trash2 } from "lucide-react";
import { type FormEvent, type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { type RoomState, useRoomAccess } from "@/app/_lib/room.ts";
import { roomTakesQuestions } from "@/server/shared/ask.ts";
import { chatBodySchema, type ChatEdit, type ChatMessage } from "@/server/shared/room-chat.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import type { RoomKind, RoomName } from "@/server/shared/rooms.ts";
import type { CodeLink } from "../review/code-ref-links.ts";
import { formatDate } from "../review/format.ts";
import { Markdown } from "../review/markdown.tsx";
import { Button, Card, TextArea, cx } from "../ui.tsx";
import { Avatar } from "./avatar.tsx";
import { ChatAnswer, type ChatAnswers, useChatAnswers } from "./chat-answer.tsx";
import { MentionAutocomplete } from "./mention-autocomplete.tsx";
import { ReactionChips, ReactionPicker } from "./message-reactions.tsx";
import { TypingIndicator } from "./typing-indicator.tsx";
import { chatAnchor, useChatAnchor } from "./use-chat-anchor.ts";
import { useReactions } from "./use-reactions.ts";
import { useRoomChat } from "./use-room-chat.ts";
import { useTyping } from "./use-typing.ts";

/** The composer's own check, the same rule the server applies (server/shared/room-chat.ts). */
function problem(body: string): string | null {
  const r = chatBodySchema.safeParse(body);
  return r.success ? null : (r.error.issues[0]?.message ?? "This message cannot be sent.");
}

function Composer({
  label,
  disabled,
  why,
  initial = "",
  submitLabel,
  onSubmit,
  onCancel,
  onTyping,
  mentions = true,
  askable = false,
}: {
  label: string;
  disabled: boolean;
  /** Why the composer is off (shown as its placeholder and under it), when it is not just connecting. */
  why?: string | null;
  initial?: string;
  submitLabel: string;
  onSubmit: (body: string) => Promise<string | null>;
  onCancel?: () => void;
  /** Called on every change with text in it (the chat's typing signal, throttled by its hook). */
  onTyping?: () => void;
  /** @mention autocomplete of the workspace's members (off for a spectator, who has no workspace). */
  mentions?: boolean;
  /** The room takes `@argus` questions: the autocomplete offers Argus. */
  askable?: boolean;
}) {
  const [draft, setDraft] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e?: FormEvent) {
    e?.preventDefault();
    const local = problem(draft);
    if (local) return setError(local.charAt(0).toUpperCase() + local.slice(1) + ".");
    setBusy(true);
    const refused = await onSubmit(draft);
    setBusy(false);
    setError(refused);
    if (!refused) setDraft("");
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter is a new line; Escape cancels an edit.
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
    if (e.key === "Escape") onCancel?.();
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="mt-2">
      <TextArea
        aria-label={label}
        rows={2}
        value={draft}
        disabled={disabled}
        onChange={(e) => {
          setDraft(e.target.value);
          if (e.target.value.trim()) onTyping?.();
        }}
        onKeyDown={onKeyDown}
        placeholder={why ?? (disabled ? "Connecting…" : "Write a message (Markdown; src/file.ts:12 links to the code)")}
        className="resize-y font-sans"
        invalid={!!error}
      />
      {mentions && <MentionAutocomplete value={draft} onChange={setDraft} askable={askable} />}
      <div className="mt-1 flex items-center justify-between gap-2">
        {error || !why ? (
          <p className="min-h-4 text-xs text-red-700 dark:text-red-400" role={error ? "alert" : undefined}>
            {error}
          </p>
        ) : (
          <p className="min-h-4 text-xs text-zinc-500">{why}</p>
        )}
        <div className="flex gap-2">
          {onCancel && (
            <Button variant="ghost" onClick={onCancel}>
              Cancel
            </Button>
          )}
          <Button type="submit" busy={busy} disabled={disabled || !draft.trim()}>
            {submitLabel}
          </Button>
        </div>
      </div>
    </form>
  );
}

function EarlierTexts({ load }: { load: () => Promise<ChatEdit[]> }) {
  const [edits, setEdits] = useState<ChatEdit[] | null>(null);
  if (!edits)
    return (
      <button type="button" className="text-xs text-zinc-500 underline" onClick={() => void load().then(setEdits)}>
        edited
      </button>
    );
  return (
    <details open className="text-xs text-zinc-500">
      <summary>earlier texts</summary>
      {edits.length === 0 && <p>none kept</p>}
      {edits.map((e) => (
        <p key={e.version} className="mt-1 whitespace-pre-wrap border-l-2 border-zinc-300 pl-2">
          <span className="block text-[11px]">until {formatDate(e.replacedAt)}</span>
          {e.body}
        </p>
      ))}
    </details>
  );
}

function MessageRow({
  m,
  selfId,
  readOnly,
  codeLink,
  chat,
  reactions,
  answer,
}: {
  m: ChatMessage;
  /** null: a spectator, whose messages these never are. */
  selfId: string | null;
  /** A spectator reads: no reacting, no earlier texts (the server refuses both). */
  readOnly: boolean;
  codeLink?: CodeLink;
  chat: ReturnType<typeof useRoomChat>;
  reactions: ReturnType<typeof useReactions>;
  /** Argus's answer when the message asked `@argus …`. */
  answer?: ReturnType<ChatAnswers["of"]>;
}) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mine = selfId !== null && m.author.id === selfId;
  const react = (emoji: Parameters<typeof reactions.toggle>[1]) => void reactions.toggle(m.id, emoji).then(setError);
  return (
    <li className="flex gap-2 py-1.5 data-[highlight]:bg-brand-50" data-message={m.id} id={chatAnchor(m.id)}>
      <Avatar id={m.author.id} name={m.author.name} />
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-baseline gap-x-2 text-xs">
          <span className="font-medium text-zinc-800 dark:text-zinc-100">{m.author.name}</span>
          <time className="text-zinc-500" dateTime={m.createdAt}>
            {formatDate(m.createdAt)}
          </time>
          {m.editedAt &&
            !m.deleted &&
            (readOnly ? (
              <span className="text-xs text-zinc-500">edited</span>
            ) : (
              <EarlierTexts load={() => chat.edits(m.id)} />
            ))}
          {!m.deleted && !editing && !readOnly && (
            <span className="ml-auto flex gap-1">
              <ReactionPicker onPick={react} />
              {mine && (
                <>
                  <button type="button" aria-label="Edit message" onClick={() => setEditing(true)}>
                    <Pencil className="size-3.5 text-zinc-500" aria-hidden />
                  </button>
                  <button
                    type="button"
                    aria-label="Delete message"
                    onClick={() => void chat.remove(m.id).then(setError)}
                  >
                    <Trash2 className="size-3.5 text-zinc-500" aria-hidden />
                  </button>
                </>
              )}
            </span>
          )}
        </p>
        {m.deleted ? (
          <p className="text-sm italic text-zinc-500">message deleted</p>
        ) : editing ? (
          <Composer
            label="Edit message"
            disabled={false}
            initial={m.body}
            submitLabel="Save"
            onCancel={() => setEditing(false)}
            onSubmit={async (body) => {
              const refused = await chat.edit(m.id, body);
              if (!refused) setEditing(false);
              return refused;
            }}
          />
        ) : (
          <Markdown className="break-words text-sm [&_p]:my-0.5" codeLink={codeLink}>
            {m.body}
          </Markdown>
        )}
        {!m.deleted && (
          <ReactionChips reactions={reactions.of(m.id)} selfId={selfId} onToggle={readOnly ? undefined : react} />
        )}
        {error && <p className="text-xs text-red-700">{error}</p>}
        {answer && <ChatAnswer answer={answer.answer} live={answer.live} codeLink={codeLink} />}
      </div>
    </li>
  );
}

export function ChatPanel<K extends RoomKind>({
  room,
  state,
  thread = null,
  title = "Team chat",
  codeLink,
  className,
  actions,
}: {
  room: RoomName<K>;
  state: RoomState<K>;
  thread?: string | null;
  title?: string;
  codeLink?: CodeLink;
  className?: string;
  /** Beside the title (e.g. who is in the room). */
  actions?: ReactNode;
}) {
  const chat = useRoomChat(room, state, thread);
  useChatAnchor(chat.messages);
  const { selfId, readOnly } = useRoomAccess();
  const reactions = useReactions(room, state, chat.pageReactions);
  const typing = useTyping(room, state, thread, selfId);
  const answers = useChatAnswers(state.events as readonly RoomEvent[], roomTakesQuestions(room));
  const box = useRef<HTMLOListElement>(null);
  useEffect(() => {
    // Follow new messages when the reader is at the bottom. Block body: see docs/architecture.md.
    const el = box.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 120) el.scrollTop = el.scrollHeight;
  }, [chat.messages.length]);
  const label = thread ? "Thread messages" : "Chat messages";
  return (
    <Card className={cx("p-4", className)}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">{title}</h2>
        {actions}
      </div>
      <ol
        ref={box}
        className="max-h-96 divide-y divide-zinc-100 overflow-y-auto dark:divide-zinc-800"
        aria-label={label}
      >
        {chat.more && (
          <li className="py-1 text-center">
            <button type="button" className="text-xs text-brand-600 underline" onClick={() => void chat.loadOlder()}>
              Load earlier messages
            </button>
          </li>
        )}
        {chat.messages.length === 0 && (
          <li className="py-2 text-sm text-zinc-500">
            {thread ? "No replies yet." : readOnly ? "No messages yet." : "No messages yet: say hello."}
          </li>
        )}
        {chat.messages.map((m) => (
          <MessageRow
            key={m.id}
            m={m}
            selfId={selfId}
            readOnly={!!readOnly}
            codeLink={codeLink}
            chat={chat}
            reactions={reactions}
            answer={answers.of(m.id)}
          />
        ))}
      </ol>
      {chat.error && <p className="mt-1 text-xs text-red-700">{chat.error}</p>}
      <TypingIndicator names={typing.names} />
      <Composer
        label={thread ? "Reply" : "Message"}
        disabled={!state.connected || !!readOnly}
        why={readOnly}
        submitLabel="Send"
        onSubmit={chat.send}
        onTyping={readOnly ? undefined : typing.signal}
        mentions={!readOnly}
        askable={roomTakesQuestions(room)}
      />
    </Card>
  );
}
