"use client";
/**
 * Conversations with Argus in a room (a project's, or a review's): the threads, the open one's
 * questions and answers streaming in for everyone, a question box (a new thread or a follow-up),
 * and what Argus did not take up from the team chat. Members ask; viewers watch.
 */
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import type { RoomState } from "@/app/_lib/room.ts";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ASK_THREAD_HASH, questionSchema } from "@/server/shared/ask.ts";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import type { RoomKind } from "@/server/shared/rooms.ts";
import { formatDate } from "../review/format.ts";
import { Markdown } from "../review/markdown.tsx";
import { Avatar } from "../rooms/avatar.tsx";
import { connectionOptionLabel, connectionValue, useModelConnections } from "../model-connections.tsx";
import { Button, Card, Select, TextArea, cx } from "../ui.tsx";
import { AnswerView, type CodeHref } from "./answer-view.tsx";
import { FindingDialog } from "./finding-dialog.tsx";
import { threadLabels } from "./thread-labels.ts";
import { useConversations } from "./use-conversations.ts";

/** What the one Ask box sends: the question, where it goes and the connection picked ("" = the default). */
type AskDraft = { question: string; followUp: boolean; connection: string };

/**
 * The page's one Ask box: a follow-up in the open thread or a new thread (a choice shown when a thread
 * is open), and the model connection (the workspace's default preselected; a member may pick another).
 */
function QuestionBox({
  thread,
  onAsk,
}: {
  thread: { title: string } | null;
  onAsk: (d: AskDraft) => Promise<string | null>;
}) {
  const [draft, setDraft] = useState("");
  const [followUp, setFollowUp] = useState(true);
  const [connection, setConnection] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { list, preselected } = useModelConnections();
  const picked = connection || preselected;
  async function submit(e?: FormEvent) {
    e?.preventDefault();
    const local = questionSchema.safeParse(draft);
    if (!local.success) return setError(local.error.issues[0]?.message ?? "This question cannot be asked.");
    setBusy(true);
    const refused = await onAsk({
      question: draft,
      followUp: !!thread && followUp,
      connection: picked === preselected ? "" : picked,
    });
    setBusy(false);
    setError(refused);
    if (!refused) setDraft("");
  }
  return (
    <form onSubmit={(e) => void submit(e)} className="mt-2" aria-label="Ask Argus">
      {thread && (
        <div role="radiogroup" aria-label="Where to ask" className="mb-1 flex flex-wrap gap-3 text-xs">
          {[
            [true, `Follow up in “${thread.title}”`],
            [false, "New thread"],
          ].map(([value, text]) => (
            <label key={String(value)} className="flex min-w-0 items-center gap-1">
              <input
                type="radio"
                name="ask-where"
                checked={followUp === value}
                onChange={() => setFollowUp(value as boolean)}
              />
              <span className="truncate">{text as string}</span>
            </label>
          ))}
        </div>
      )}
      <TextArea
        aria-label="Question"
        rows={2}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          }
        }}
        placeholder="Ask about the code, e.g. where are passwords hashed?"
        className="resize-y font-sans"
        invalid={!!error}
      />
      <div className="mt-1 flex flex-wrap items-center justify-between gap-2">
        <p className="min-h-4 min-w-0 flex-1 text-xs text-red-700 dark:text-red-400" role={error ? "alert" : undefined}>
          {error}
        </p>
        {list.data && list.data.some((c) => c.usable) && (
          <Select
            size="compact"
            aria-label="Model connection"
            className="max-w-56 text-xs"
            value={picked}
            onChange={(e) => setConnection(e.target.value)}
          >
            {list.data.map((c) => (
              <option key={connectionValue(c)} value={connectionValue(c)} disabled={!c.usable}>
                {connectionOptionLabel(c)}
              </option>
            ))}
          </Select>
        )}
        <Button type="submit" busy={busy} disabled={!draft.trim()}>
          Ask
        </Button>
      </div>
    </form>
  );
}

export function ConversationsPanel<K extends RoomKind>({
  projectUid,
  reviewUid,
  state,
  codeHref,
  className,
}: {
  projectUid: string;
  reviewUid?: string;
  state: RoomState<K>;
  codeHref: CodeHref;
  className?: string;
}) {
  const { canEdit, user } = useWorkspace();
  const [open, setOpen] = useState<string | null>(null);
  const [toFinding, setToFinding] = useState<{ answerUid: string; selection?: string } | null>(null);
  const c = useConversations({ projectUid, reviewUid, events: state.events as readonly RoomEvent[], openThread: open });
  const seenThreads = useRef<Set<string> | null>(null);
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    // Open the newest thread when none is open, and a thread someone just started here (from the
    // chat with @argus, or "Ask about this finding"), so its answer is seen streaming in.
    // Not before the list has loaded: the threads it brings are not new ones, and scrolling to them
    // would open a phone's page halfway down (issue 28).
    if (c.loading) return;
    const ids = new Set(c.threads.map((t) => t.id));
    const before = seenThreads.current;
    seenThreads.current = ids;
    const fresh = before ? c.threads.find((t) => !before.has(t.id)) : undefined;
    // Anyone's new question opens for everyone: the conversation is shared, and its answer is live.
    if (fresh) {
      setOpen(fresh.id);
      if (fresh.createdBy.id === user.id) panel.current?.scrollIntoView({ block: "nearest" });
    } else if (!open && c.threads[0]) setOpen(c.threads[0].id);
  }, [c.threads, c.loading, open, user.id]);

  useEffect(() => {
    // "Open in Ask Argus" under an answer in the team chat: `#ask-thread-<id>` opens that thread here.
    const onHash = () => {
      const h = window.location.hash;
      if (!h.startsWith(`#${ASK_THREAD_HASH}`)) return;
      setOpen(h.slice(ASK_THREAD_HASH.length + 1));
      panel.current?.scrollIntoView({ block: "start" });
    };
    onHash();
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const thread = c.threads.find((t) => t.id === open);
  const labels = useMemo(() => threadLabels(c.threads), [c.threads]);
  async function ask(d: AskDraft): Promise<string | null> {
    const threadUid = d.followUp ? thread?.id : undefined;
    try {
      const r = await c.ask.mutateAsync({
        question: d.question,
        threadUid,
        projectUid: threadUid || reviewUid ? undefined : projectUid,
        reviewUid: threadUid ? undefined : reviewUid,
        ...(d.connection ? { connectionUid: d.connection } : {}),
      });
      setOpen(r.thread.id);
      return null;
    } catch (err) {
      return errorInfo(err).message;
    }
  }

  return (
    <section ref={panel} id="ask-argus" aria-label="Conversations with Argus" className={className}>
      <Card className="p-4">
        <h2 className="mb-2 text-sm font-semibold">Ask Argus</h2>
        <p className="mb-2 text-xs text-zinc-500">
          Questions about this {reviewUid ? "review's" : "project's"} code, answered with the code as evidence and
          visible to the whole team. In the team chat, write <code>@argus …</code>.
        </p>
        <p className="mb-2 text-xs text-zinc-500" aria-label="What a follow-up carries">
          A follow-up carries the thread: earlier questions and answers as text, each answer&apos;s tool calls
          summarized to one line (their results are not sent again), and the oldest turns left out when that passes a
          quarter of the model&apos;s context window.
        </p>
        {c.threads.length > 0 && (
          <ul className="mb-3 flex flex-wrap gap-1" aria-label="Threads">
            {c.threads.map((t) => (
              <li key={t.id}>
                <button
                  type="button"
                  aria-pressed={t.id === open}
                  onClick={() => setOpen(t.id)}
                  className={cx(
                    "max-w-64 truncate rounded-md border px-2 py-1 text-xs",
                    t.id === open
                      ? "border-brand-600 bg-brand-50 text-brand-700 dark:bg-brand-700/30 dark:text-brand-100"
                      : "border-zinc-300 dark:border-zinc-700",
                  )}
                >
                  {labels.get(t.id) ?? t.title}
                </button>
              </li>
            ))}
          </ul>
        )}
        {thread && (
          <ol className="max-h-[32rem] space-y-3 overflow-y-auto" aria-label="Conversation">
            {c.messages.map((m) =>
              m.kind === "question" ? (
                <li key={m.id} className="flex gap-2">
                  {m.author && <Avatar id={m.author.id} name={m.author.name} />}
                  <div className="min-w-0">
                    <p className="text-xs">
                      <span className="font-medium">{m.author?.name}</span>{" "}
                      <time className="text-zinc-500" dateTime={m.createdAt}>
                        {formatDate(m.createdAt)}
                      </time>
                    </p>
                    <Markdown className="break-words text-sm [&_p]:my-0.5">{m.body}</Markdown>
                  </div>
                </li>
              ) : (
                <li key={m.id} className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
                  <AnswerView
                    answer={m}
                    live={c.live.get(m.id)}
                    codeHref={codeHref}
                    canAsk={canEdit}
                    onCancel={() => c.cancel.mutate({ answerUid: m.id })}
                    onToFinding={(selection) => setToFinding({ answerUid: m.id, selection })}
                  />
                </li>
              ),
            )}
          </ol>
        )}
        {c.refusals.length > 0 && (
          <ul className="mt-2 space-y-1 text-xs text-amber-800 dark:text-amber-200" aria-label="Not answered">
            {c.refusals.slice(-3).map((r) => (
              <li key={r.seq}>
                Argus did not answer {r.by}: {r.reason}
              </li>
            ))}
          </ul>
        )}
        {canEdit ? (
          <QuestionBox thread={thread ?? null} onAsk={ask} />
        ) : (
          <p className="mt-2 text-xs text-zinc-500">Viewers watch the conversations; members and owners ask.</p>
        )}
      </Card>
      {toFinding && (
        <FindingDialog
          answerUid={toFinding.answerUid}
          selection={toFinding.selection}
          onClose={() => setToFinding(null)}
        />
      )}
    </section>
  );
}
