"use client";
/**
 * One chat session: its turns (questions and answers with their sources), the composer for the
 * member who started it, and rename, export (Markdown, .docx: export-buttons.tsx) and delete (with a
 * confirmation).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessagesSquare, Pencil, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { NameDialog } from "@/app/_components/name-dialog.tsx";
import { DetailNotLoaded } from "@/app/_components/query-states.tsx";
import { Button, ConfirmDialog, EmptyState, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { galleryHref, pipelineHref } from "../../_components/types.ts";
import { AnswerView } from "./answer-view.tsx";
import { Composer } from "./composer.tsx";
import { ExportButtons, useSessionExport } from "./export-buttons.tsx";
import { CHAT_HOME, type ChatSession } from "./types.ts";

function Turns({ session, onEnd }: { session: ChatSession; onEnd: () => void }) {
  const end = useRef<HTMLDivElement>(null);
  const count = session.turns.length;
  useEffect(() => {
    end.current?.scrollIntoView({ block: "nearest" });
  }, [count]);
  let n = 0;
  return (
    <>
      <ol aria-label="Conversation" className="space-y-3">
        {session.turns.map((t) => {
          if (t.role === "user") n++;
          return (
            <li key={t.uid} className={t.role === "user" ? "flex justify-end" : ""}>
              {t.role === "user" ? (
                <p className="max-w-[85%] rounded-lg bg-brand-50 px-3 py-2 text-sm whitespace-pre-wrap dark:bg-brand-950/50">
                  <span className="sr-only">You: </span>
                  {t.body}
                </p>
              ) : (
                <AnswerView turn={t} index={n} onEnd={onEnd} />
              )}
            </li>
          );
        })}
      </ol>
      <div ref={end} />
    </>
  );
}

function whyReadOnly(s: ChatSession): string {
  if (s.pipelineGone) return "This session's pipeline was deleted: it can be read and exported, not continued.";
  return `Only ${s.createdBy ?? "the member who started it"} asks in this session; you can read and export it.`;
}

export function SessionView({ uid }: { uid: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const nameId = useId();
  const session = useQuery({
    ...trpc.pipelineChat.get.queryOptions({ uid }),
    // The answer's room says when it ends; polling is the fallback when the socket cannot connect.
    refetchInterval: (q) => (q.state.data?.turns.some((t) => t.status === "running") ? 4000 : false),
  });
  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.pipelineChat.get.queryKey({ uid }) });
    void queryClient.invalidateQueries({ queryKey: trpc.pipelineChat.sessions.pathKey() });
  }, [queryClient, trpc, uid]);

  const [sendError, setSendError] = useState<string | null>(null);
  const send = useMutation(trpc.pipelineChat.send.mutationOptions());
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState("");
  const rename = useMutation(
    trpc.pipelineChat.rename.mutationOptions({
      onSuccess: () => {
        setRenaming(false);
        toast.success("Session renamed");
        refresh();
      },
    }),
  );
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(
    trpc.pipelineChat.delete.mutationOptions({
      onSuccess: () => {
        toast.success("Session deleted");
        void queryClient.invalidateQueries({ queryKey: trpc.pipelineChat.sessions.pathKey() });
        router.push(CHAT_HOME);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const exporter = useSessionExport(uid);

  if (session.isError || !session.data) return <DetailNotLoaded query={session} back={null} />;
  const s = session.data;
  const running = s.turns.some((t) => t.status === "running");
  const pipelineLink = s.pipelineUid ? pipelineHref(s.pipelineUid) : s.galleryKey ? galleryHref(s.galleryKey) : null;

  async function onSend(text: string, fullPipeline: boolean): Promise<boolean> {
    setSendError(null);
    try {
      await send.mutateAsync({ uid, text, ...(fullPipeline ? { fullPipeline } : {}) });
      refresh();
      return true;
    } catch (err) {
      setSendError(errorInfo(err).message);
      return false;
    }
  }

  return (
    <>
      <PageHeader
        title={s.title}
        description={`Chat with ${s.pipelineTitle}${s.createdBy ? ` · started by ${s.createdBy}` : ""}`}
        actions={
          <>
            {s.canRename && (
              <Button
                variant="secondary"
                onClick={() => {
                  setName(s.title);
                  rename.reset();
                  setRenaming(true);
                }}
              >
                <Pencil className="size-4" aria-hidden /> Rename
              </Button>
            )}
            <ExportButtons {...exporter} disabled={s.turns.length === 0} />
            {s.canDelete && (
              <Button variant="ghost" aria-label="Delete session" onClick={() => setDeleting(true)}>
                <Trash2 className="size-4" aria-hidden />
              </Button>
            )}
          </>
        }
      />
      {pipelineLink && (
        <p className="-mt-4 mb-4 text-sm">
          <Link href={pipelineLink} className="text-zinc-500 hover:underline">
            Open {s.pipelineTitle}
          </Link>
        </p>
      )}
      {s.turns.length === 0 ? (
        <EmptyState icon={<MessagesSquare className="size-8" aria-hidden />} title="Ask your first question">
          {s.canAsk
            ? `The first question runs ${s.pipelineTitle} on it: its answer shows the sources it cites. Follow-ups go to its model with the conversation so far.`
            : "Nothing has been asked in this session yet."}
        </EmptyState>
      ) : (
        <Turns session={s} onEnd={refresh} />
      )}
      {s.canAsk ? (
        <Composer
          busy={send.isPending}
          disabled={running}
          followUp={s.turns.some((t) => t.role === "assistant" && t.status === "done")}
          error={sendError}
          onSend={onSend}
        />
      ) : (
        <p className="mt-4 text-sm text-zinc-500">{whyReadOnly(s)}</p>
      )}

      <NameDialog
        open={renaming}
        onClose={() => setRenaming(false)}
        title="Rename session"
        submitLabel="Rename"
        busy={rename.isPending}
        error={rename.error ? errorInfo(rename.error) : null}
        onSubmit={() => rename.mutate({ uid, name })}
        name={{ id: nameId, value: name, onChange: setName, placeholder: "Everest questions" }}
      />
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ uid })}
        title="Delete this session?"
        body={`“${s.title}” and its ${s.turns.length} messages are deleted for everyone in the workspace. The runs behind the answers stay in the pipeline's run history.`}
        confirmLabel="Delete session"
        busy={remove.isPending}
      />
    </>
  );
}
