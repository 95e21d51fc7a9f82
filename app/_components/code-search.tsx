"use client";
/** The project search box: hybrid (default), full-text or semantic search over the snapshot's code, with deep links. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { MatchBadge, SearchBox, SearchResults, useSearchInput } from "./search-box.tsx";
import { highlightTerms } from "./search-helpers.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";

export function CodeSearch({
  snapshotUid,
  hrefFor,
}: {
  snapshotUid: string;
  hrefFor: (file: string, line: number) => string;
}) {
  const trpc = useTRPC();
  const search = useSearchInput();
  const { query, mode } = search;
  const results = useQuery({
    ...trpc.snapshots.search.queryOptions({ snapshotUid, query, mode, k: 20 }),
    enabled: query.length > 0,
  });

  return (
    <div className="mb-6">
      <SearchBox
        search={search}
        label="Search the code"
        placeholder="Search the code: names, comments, what it does…"
      />
      <SearchResults query={query} results={results} running={query.length > 0} className="max-h-96">
        {(hits) =>
          hits.map((r, i) => (
            <li key={`${r.file}:${r.startLine}:${i}`}>
              <Link
                href={hrefFor(r.file, r.startLine)}
                className="block px-3 py-2 hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
              >
                <p className="font-mono text-xs text-brand-600">
                  {r.file}:{r.startLine}–{r.endLine}{" "}
                  {r.symbolPath && <span className="text-zinc-500">· {r.symbolPath}</span>}
                  <MatchBadge match={r.match} />
                </p>
                <pre className="mt-1 line-clamp-3 whitespace-pre-wrap font-mono text-xs text-zinc-700 dark:text-zinc-300">
                  {highlightTerms(r.snippet, query)}
                </pre>
              </Link>
            </li>
          ))
        }
      </SearchResults>
    </div>
  );
}
