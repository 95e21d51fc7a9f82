"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Pencil, RefreshCw, Trash2 } from "lucide-react";
import { useParams, useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import {
  BackLink,
  Badge,
  Button,
  Card,
  ConfirmDialog,
  DelayedSkeleton,
  PageHeader,
  ProgressBar,
} from "@/app/_components/ui.tsx";
import { DetailNotLoaded, QueryError } from "@/app/_components/query-states.tsx";
import { formatCount } from "@/app/_components/review/format.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { RoomChatCard } from "@/app/_components/rooms/room-chat-card.tsx";
import { BaseDialog } from "../_components/base-dialog.tsx";
import { ChunkingForm } from "../_components/chunking-form.tsx";
import { DocumentsTable } from "../_components/documents-table.tsx";
import { formatBytes, statusTone } from "../_components/format.ts";
import { KnowledgeSearch } from "../_components/knowledge-search.tsx";
import { TryInPipeline } from "../_components/try-in-pipeline.tsx";
import { UploadZone } from "../_components/upload-zone.tsx";

export default function KnowledgeBasePage() {
  const { uid } = useParams<{ uid: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { canEdit, workspace } = useWorkspace();
  // Poll every second while the base is indexing (rooms come later); every viewer sees the same bar.
  const base = useQuery({
    ...trpc.knowledge.get.queryOptions({ uid }),
    refetchInterval: (q) => (q.state.data?.status === "indexing" ? 1000 : false),
  });
  const indexing = base.data?.status === "indexing";
  const documents = useQuery({
    ...trpc.knowledge.documents.queryOptions({ uid }),
    refetchInterval: indexing ? 1000 : false,
  });
  // Counts in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  // When indexing ends, refresh everything once (document statuses, chunk counts, search).
  const wasIndexing = useRef(false);
  useEffect(() => {
    if (wasIndexing.current && !indexing) void queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
    wasIndexing.current = indexing;
  }, [indexing, queryClient, trpc]);

  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
  const rebuild = useMutation(
    trpc.knowledge.rebuild.mutationOptions({
      onSuccess: () => void invalidate(),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const remove = useMutation(
    trpc.knowledge.delete.mutationOptions({
      onSuccess: async () => {
        toast.success("Knowledge base deleted");
        router.push("/knowledge");
        await invalidate();
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  const back = <BackLink href="/knowledge">Knowledge</BackLink>;
  if (base.isError || !base.data) return <DetailNotLoaded query={base} back={back} />;
  const b = base.data;
  const pct = Math.round(b.progress * 100);
  const searchDisabled =
    b.chunks === 0
      ? indexing
        ? "Search opens once the first documents are indexed…"
        : "Upload documents to search them."
      : undefined;

  return (
    <>
      {back}
      <PageHeader
        title={b.name}
        description={b.description ?? undefined}
        actions={
          canEdit && (
            <>
              <TryInPipeline workspaceId={workspace.id} baseUid={b.uid} disabled={b.documents === 0} />
              <Button variant="secondary" onClick={() => setEditing(true)}>
                <Pencil className="size-4" aria-hidden /> Edit
              </Button>
              <Button
                variant="secondary"
                busy={rebuild.isPending}
                disabled={indexing || b.documents === 0}
                onClick={() => rebuild.mutate({ uid })}
              >
                <RefreshCw className="size-4" aria-hidden /> Rebuild index
              </Button>
              <Button variant="ghost" aria-label="Delete knowledge base" onClick={() => setDeleting(true)}>
                <Trash2 className="size-4" aria-hidden />
              </Button>
            </>
          )
        }
      />
      <div className="mb-4 flex flex-wrap items-center gap-3 text-sm text-zinc-500">
        <Badge tone={statusTone(b.status)}>{b.status}</Badge>
        <span>
          {b.readyDocuments} of {b.documents} {b.documents === 1 ? "document" : "documents"} indexed ·{" "}
          {formatCount(b.chunks, local)} chunks · {formatBytes(b.bytes)} · embedder {b.embedder}
        </span>
      </div>
      {b.embedder === "hash" && b.status === "ready" && (
        <p className="mb-4 text-sm text-zinc-500" role="note">
          This index was built with the older hash embedder and still searches as before. Rebuild the index to use the
          local embedder and stemmed full text, which find more.
        </p>
      )}
      {indexing && (
        <Card className="mb-6 p-4">
          <p className="text-sm font-medium">Indexing…</p>
          <ProgressBar className="mt-2" fraction={pct / 100} label="Indexing progress" />
          <p className="mt-1 text-xs text-zinc-500">
            {pct}% {b.message ? `· ${b.message}` : ""}
          </p>
        </Card>
      )}
      {b.status === "failed" && (
        <div
          role="alert"
          className="mb-6 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
        >
          <p className="font-medium">The last indexing run failed.</p>
          <p className="mt-1">{b.message}</p>
          {b.chunks > 0 && <p className="mt-1 text-xs">Search still answers from the previous index.</p>}
        </div>
      )}

      <div className="mb-6">
        <KnowledgeSearch baseUid={uid} disabled={searchDisabled} />
      </div>

      <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
        <div className="min-w-0 space-y-4">
          {canEdit && <UploadZone baseUid={uid} onUploaded={() => void invalidate()} />}
          <QueryError query={documents} />
          {documents.isPending ? (
            <DelayedSkeleton />
          ) : (
            documents.data && <DocumentsTable documents={documents.data} canEdit={canEdit} />
          )}
        </div>
        <div className="space-y-4">
          <ChunkingForm baseUid={uid} chunking={b.chunking} canEdit={canEdit} />
          <RoomChatCard kind="kb" uid={uid} />
        </div>
      </div>

      <BaseDialog open={editing} onClose={() => setEditing(false)} base={b} />
      <ConfirmDialog
        open={deleting}
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ uid })}
        busy={remove.isPending}
        title="Delete knowledge base?"
        body={
          <>
            “{b.name}”, its {b.documents} documents and its search index will be deleted. This cannot be undone.
          </>
        }
        confirmLabel="Delete knowledge base"
      />
    </>
  );
}
