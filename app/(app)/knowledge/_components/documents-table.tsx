"use client";
/** The documents of a base: status, chunks, size and, for skipped or failed ones, the reason. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { FileText, Trash2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Badge, Button, Card, ConfirmDialog, EmptyState } from "@/app/_components/ui.tsx";
import { formatCount } from "@/app/_components/review/format.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import type { AppRouter } from "@/server/trpc/router.ts";
import { formatBytes, statusTone } from "./format.ts";

type DocumentRow = inferRouterOutputs<AppRouter>["knowledge"]["documents"][number];

export function DocumentsTable({ documents, canEdit }: { documents: DocumentRow[]; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [deleting, setDeleting] = useState<DocumentRow | null>(null);
  // Counts in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const remove = useMutation(
    trpc.knowledge.deleteDocument.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.knowledge.pathKey() });
        toast.success("Document deleted");
        setDeleting(null);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  if (documents.length === 0) {
    return (
      <EmptyState icon={<FileText className="size-8" />} title="No documents yet">
        {canEdit
          ? "Upload documents above; they are read, chunked and indexed in the background."
          : "Nobody has uploaded documents to this base yet."}
      </EmptyState>
    );
  }
  return (
    <Card className="overflow-x-auto">
      <table className="w-full text-sm" aria-label="Documents">
        <thead className="border-b border-zinc-200 text-left text-xs text-zinc-500 dark:border-zinc-800">
          <tr>
            <th className="px-4 py-2 font-medium">Name</th>
            <th className="px-2 py-2 font-medium">Status</th>
            <th className="px-2 py-2 text-right font-medium">Chunks</th>
            <th className="px-2 py-2 text-right font-medium">Size</th>
            {canEdit && (
              <th className="w-10 px-2 py-2">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {documents.map((d) => (
            <tr key={d.uid} className="align-top">
              <td className="px-4 py-2">
                <p className="break-all font-medium">{d.name}</p>
                {d.message && (
                  <p
                    className={
                      d.status === "failed" ? "text-xs text-red-600 dark:text-red-400" : "text-xs text-zinc-500"
                    }
                  >
                    {d.message}
                  </p>
                )}
              </td>
              <td className="px-2 py-2">
                <Badge tone={statusTone(d.status)}>{d.status}</Badge>
              </td>
              <td className="px-2 py-2 text-right tabular-nums">
                {d.status === "ready" ? formatCount(d.chunkCount, local) : "–"}
              </td>
              <td className="whitespace-nowrap px-2 py-2 text-right tabular-nums">{formatBytes(d.bytes)}</td>
              {canEdit && (
                <td className="px-2 py-1">
                  <Button variant="ghost" aria-label={`Delete ${d.name}`} onClick={() => setDeleting(d)}>
                    <Trash2 className="size-4" aria-hidden />
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        open={!!deleting}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ documentUid: deleting.uid })}
        busy={remove.isPending}
        title="Delete document?"
        body={<>“{deleting?.name}” is removed from this knowledge base and its index.</>}
        confirmLabel="Delete document"
      />
    </Card>
  );
}
