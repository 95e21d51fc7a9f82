"use client";
import { useQuery } from "@tanstack/react-query";
import { BookOpen, Plus } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { Badge, Button, EmptyState, PageHeader } from "@/app/_components/ui.tsx";
import { QueryList } from "@/app/_components/query-states.tsx";
import { formatCount } from "@/app/_components/review/format.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { BaseDialog } from "./_components/base-dialog.tsx";
import { formatBytes, statusTone } from "./_components/format.ts";

export default function KnowledgePage() {
  const trpc = useTRPC();
  const { workspace, canEdit } = useWorkspace();
  const bases = useQuery({
    ...trpc.knowledge.list.queryOptions({ workspaceId: workspace.id }),
    refetchInterval: (q) => (q.state.data?.some((b) => b.status === "indexing") ? 2000 : false),
  });
  // Counts in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const [creating, setCreating] = useState(false);

  const newButton = canEdit && (
    <Button onClick={() => setCreating(true)}>
      <Plus className="size-4" aria-hidden /> New knowledge base
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Knowledge"
        description="Document collections the agents and pipelines can search."
        actions={newButton}
      />
      <QueryList
        query={bases}
        label="Knowledge bases"
        empty={
          <EmptyState icon={<BookOpen className="size-8" />} title="No knowledge bases yet" action={newButton}>
            {canEdit
              ? "Create a knowledge base, then upload text, Markdown, HTML, PDF or Word documents to search them."
              : "Nobody has created a knowledge base in this workspace yet."}
          </EmptyState>
        }
      >
        {(b) => (
          <li key={b.uid} className="flex items-center gap-3 px-4 py-3">
            <BookOpen className="size-4 shrink-0 text-zinc-400" aria-hidden />
            <div className="min-w-0 flex-1">
              <Link href={`/knowledge/${b.uid}`} className="block truncate font-medium hover:underline">
                {b.name}
              </Link>
              {b.description && <p className="truncate text-xs text-zinc-500">{b.description}</p>}
            </div>
            <span className="hidden text-xs text-zinc-500 sm:inline">
              {b.documents} {b.documents === 1 ? "document" : "documents"} · {formatCount(b.chunks, local)} chunks ·{" "}
              {formatBytes(b.bytes)}
            </span>
            <Badge tone={statusTone(b.status)}>
              {b.status === "indexing" ? `indexing ${Math.round(b.progress * 100)}%` : b.status}
            </Badge>
          </li>
        )}
      </QueryList>
      <BaseDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
