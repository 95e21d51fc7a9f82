"use client";
/**
 * Pipelines: the workspace's own and the built-in gallery as cards (title, description, tags, what
 * they need, the last run and its status), with a search box and tag filters kept in the address
 * (`?q=…&tag=…`, so a filtered view can be shared), and Import YAML for members.
 */
import { useQuery } from "@tanstack/react-query";
import { FileUp, MessagesSquare, Search, Workflow } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useMemo, useState } from "react";
import { DelayedSkeleton, Badge, Button, EmptyState, Input, PageHeader, cx } from "@/app/_components/ui.tsx";
import { NoModelNotice } from "@/app/_components/model-connections.tsx";
import { QueryError } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ImportDialog } from "./_components/import-dialog.tsx";
import { RunStatus } from "./_components/run-status.tsx";
import { galleryHref, needsLabel, pipelineHref, runHref, type PipelineList } from "./_components/types.ts";

type Card = {
  id: string;
  href: string;
  name: string;
  title: string;
  description: string;
  tags: string[];
  needs: string;
  lastRun: PipelineList["gallery"][number]["lastRun"];
  badges?: { label: string; tone: "zinc" | "brand" | "amber" | "green" }[];
};

function matches(c: Card, q: string, tags: string[]) {
  if (tags.some((t) => !c.tags.includes(t))) return false;
  if (!q) return true;
  const hay = `${c.title} ${c.name} ${c.description} ${c.tags.join(" ")}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

function PipelineCard({ c }: { c: Card }) {
  return (
    <li className="flex min-w-0 flex-col rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium">
          <Link href={c.href} className="hover:underline focus-visible:underline">
            {c.title}
          </Link>
        </h3>
        <Badge tone={c.needs === "none" ? "green" : "amber"}>{needsLabel(c.needs)}</Badge>
      </div>
      <p className="font-mono text-xs text-zinc-500">{c.name}.yaml</p>
      <NoModelNotice needs={c.needs} className="mt-1" />
      {c.description && <p className="mt-2 line-clamp-3 text-sm text-zinc-600 dark:text-zinc-300">{c.description}</p>}
      <div className="mt-3 flex flex-wrap gap-1">
        {c.badges?.map((b) => (
          <Badge key={b.label} tone={b.tone}>
            {b.label}
          </Badge>
        ))}
        {c.tags.map((t) => (
          <span
            key={t}
            className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300"
          >
            #{t}
          </span>
        ))}
      </div>
      <div className="mt-auto pt-3 text-xs text-zinc-500">
        {c.lastRun ? (
          <Link href={runHref(c.lastRun.uid)} className="inline-flex items-center gap-1.5 hover:underline">
            Last run <RunStatus status={c.lastRun.status} /> {formatDate(c.lastRun.createdAt)}
          </Link>
        ) : (
          "Not run yet"
        )}
      </div>
    </li>
  );
}

function CardGrid({ cards, label }: { cards: Card[]; label: string }) {
  return (
    <ul aria-label={label} className="grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
      {cards.map((c) => (
        <PipelineCard key={c.id} c={c} />
      ))}
    </ul>
  );
}

export default function PipelinesPage() {
  // The filters live in the address (useSearchParams), which needs a Suspense boundary on a static route.
  return (
    <Suspense>
      <Pipelines />
    </Suspense>
  );
}

function Pipelines() {
  const trpc = useTRPC();
  const { workspace, canEdit } = useWorkspace();
  const list = useQuery(trpc.pipelines.list.queryOptions({ workspaceId: workspace.id }));
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const [importing, setImporting] = useState(false);
  const q = search.get("q") ?? "";
  const tags = search.getAll("tag");
  const [text, setText] = useState(q);

  const update = (next: { q?: string; tags?: string[] }) => {
    const p = new URLSearchParams();
    const nq = next.q ?? q;
    if (nq) p.set("q", nq);
    for (const t of next.tags ?? tags) p.append("tag", t);
    const qs = p.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  };

  const { mine, gallery, allTags } = useMemo(() => {
    const data = list.data;
    if (!data) return { mine: [] as Card[], gallery: [] as Card[], allTags: [] as string[] };
    const mine: Card[] = data.pipelines.map((p) => ({
      id: p.uid,
      href: pipelineHref(p.uid),
      name: p.name,
      title: p.title,
      description: p.description,
      tags: p.tags,
      needs: p.needs,
      lastRun: p.lastRun,
      badges: [
        { label: `version ${p.version}`, tone: "zinc" },
        ...(p.valid ? [] : [{ label: "draft: invalid", tone: "amber" as const }]),
        ...(p.forkedFrom ? [{ label: `fork of ${p.forkedFrom}`, tone: "brand" as const }] : []),
      ],
    }));
    const gallery: Card[] = data.gallery.map((g) => ({ ...g, id: g.key, href: galleryHref(g.key), name: g.key }));
    const allTags = [...new Set([...mine, ...gallery].flatMap((c) => c.tags))].sort();
    return { mine, gallery, allTags };
  }, [list.data]);

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
      <form
        role="search"
        className="mb-3 flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          update({ q: text.trim() });
        }}
      >
        <div className="relative min-w-0 flex-1 sm:max-w-sm">
          <Search className="pointer-events-none absolute top-2.5 left-2.5 size-4 text-zinc-400" aria-hidden />
          <Input
            aria-label="Search pipelines"
            placeholder="Search pipelines"
            className="pl-8"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              update({ q: e.target.value.trim() });
            }}
          />
        </div>
        {filtering && (
          <Button
            variant="ghost"
            onClick={() => {
              setText("");
              update({ q: "", tags: [] });
            }}
          >
            Clear filters
          </Button>
        )}
      </form>
      {allTags.length > 0 && (
        <div className="mb-6 flex flex-wrap gap-1.5" role="group" aria-label="Filter by tag">
          {allTags.map((t) => {
            const on = tags.includes(t);
            return (
              <button
                key={t}
                type="button"
                aria-pressed={on}
                onClick={() => update({ tags: on ? tags.filter((x) => x !== t) : [...tags, t] })}
                className={cx(
                  "rounded-full border px-2.5 py-0.5 text-xs",
                  on
                    ? "border-brand-600 bg-brand-600 text-white"
                    : "border-zinc-300 text-zinc-600 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800",
                )}
              >
                #{t}
              </button>
            );
          })}
        </div>
      )}

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
