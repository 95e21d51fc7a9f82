"use client";
/** The pipelines list's cards: a workspace pipeline or a gallery entry as one card, the grid of them, and the filter they pass. */
import Link from "next/link";
import { Badge } from "@/app/_components/ui.tsx";
import { NoModelNotice } from "@/app/_components/model-connections.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { RunStatus } from "./run-status.tsx";
import { galleryHref, needsLabel, pipelineHref, runHref, type PipelineList } from "./types.ts";

export type Card = {
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

/** The list's answer as cards: the workspace's own, the gallery's, and every tag either has. */
export function cardsOf(data: PipelineList | undefined): { mine: Card[]; gallery: Card[]; allTags: string[] } {
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
}

export function matches(c: Card, q: string, tags: string[]) {
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
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
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
            Last run <RunStatus status={c.lastRun.status} /> {formatDate(c.lastRun.createdAt, local)}
          </Link>
        ) : (
          "Not run yet"
        )}
      </div>
    </li>
  );
}

export function CardGrid({ cards, label }: { cards: Card[]; label: string }) {
  return (
    <ul aria-label={label} className="grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
      {cards.map((c) => (
        <PipelineCard key={c.id} c={c} />
      ))}
    </ul>
  );
}
