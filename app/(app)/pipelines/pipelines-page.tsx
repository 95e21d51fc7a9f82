"use client";
/**
 * Pipelines: the workspace's own and the built-in gallery as cards (title, description, tags, what
 * they need, the last run and its status), with a search box and tag filters kept in the address
 * (`?q=…&tag=…`, so a filtered view can be shared), and Import YAML for members.
 */
import { useQuery } from "@tanstack/react-query";
import { FileUp, MessagesSquare, Workflow } from "lucide-react";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { DelayedSkeleton, Button, EmptyState, PageHeader } from "@/app/_components/ui.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ImportDialog } from "./_components/import-dialog.tsx";
import { CardGrid, cardsOf, matches } from "./_components/pipeline-cards.tsx";
import { PipelineFilters } from "./_components/pipeline-filters.tsx";
import { useReplaceQuery } from "./_components/use-replace-query.ts";

// No Suspense boundary around the view, though it reads useSearchParams: see app/(app)/projects/[uid]/project-page.tsx.
export default function PipelinesPage() {
  return <Pipelines />;
}

function Pipelines() {
  const trpc = useTRPC();
  const { workspace, canEdit } = useWorkspace();
  const list = useQuery(trpc.pipelines.list.queryOptions({ workspaceId: workspace.id }));
  const search = useSearchParams();
  const replaceQuery = useReplaceQuery();
  const [importing, setImporting] = useState(false);
  const q = search.get("q") ?? "";
  const tags = search.getAll("tag");

  const update = (next: { q?: string; tags?: string[] }) => {
    const p = new URLSearchParams();
    const nq = next.q ?? q;
    if (nq) p.set("q", nq);
    for (const t of next.tags ?? tags) p.append("tag", t);
    replaceQuery(p);
  };

  const { mine, gallery, allTags } = useMemo(() => cardsOf(list.data), [list.data]);
  const shownMine = mine.filter((c) => matches(c, q, tags));
  const shownGallery = gallery.filter((c) => matches(c, q, tags));
  const filtering = Boolean(q || tags.length);
  const importButton = canEdit && (
    <Button onClick={() => setImporting(true)}>
      <FileUp className="size-4" aria-hidden /> Import YAML
    </Button>
  );
  const chatLink = (
    <Link
      href="/pipelines/chat"
      className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      <MessagesSquare className="size-4" aria-hidden /> Chat with a pipeline
    </Link>
  );

  return (
    <>
      <PageHeader
        title="Pipelines"
        description="UltraRAG-compatible RAG pipelines: fork one from the gallery, edit its steps and parameters, run it and watch it work."
        actions={
          <>
            {chatLink}
            {importButton}
          </>
        }
      />
      <PipelineFilters q={q} tags={tags} allTags={allTags} onChange={update} />

      {list.isPending ? (
        <DelayedSkeleton rows={4} />
      ) : list.isError ? (
        <QueryError query={list} />
      ) : (
        <div className="space-y-8">
          <section aria-labelledby="mine-title">
            <h2 id="mine-title" className="mb-3 text-sm font-semibold tracking-wide text-zinc-500 uppercase">
              This workspace
            </h2>
            {mine.length === 0 ? (
              <EmptyState
                icon={<Workflow className="size-8" />}
                title="No pipelines of your own yet"
                action={importButton}
              >
                {canEdit
                  ? "Fork one from the gallery below to change its steps and parameters, or import a pipeline's YAML."
                  : "Nobody has forked or imported a pipeline in this workspace yet; the gallery's run as they are."}
              </EmptyState>
            ) : shownMine.length === 0 ? (
              <p className="text-sm text-zinc-500">None of this workspace&apos;s pipelines match.</p>
            ) : (
              <CardGrid cards={shownMine} label="This workspace's pipelines" />
            )}
          </section>
          <section aria-labelledby="gallery-title">
            <h2 id="gallery-title" className="mb-3 text-sm font-semibold tracking-wide text-zinc-500 uppercase">
              Gallery
            </h2>
            {shownGallery.length === 0 ? (
              <p className="text-sm text-zinc-500">No gallery pipeline matches{filtering ? " these filters" : ""}.</p>
            ) : (
              <CardGrid cards={shownGallery} label="Gallery pipelines" />
            )}
          </section>
        </div>
      )}
      <ImportDialog open={importing} onClose={() => setImporting(false)} />
    </>
  );
}
