"use client";
/** The project search box: hybrid (default), full-text or semantic search over the snapshot's code, with deep links. */
import { useQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { highlightTerms, useDebouncedQuery } from "./search-helpers.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { Card, DelayedSkeleton, Input, cx } from "./ui.tsx";

type Mode = "hybrid" | "fulltext" | "vector";

export function CodeSearch({
  snapshotUid,
  hrefFor,
}: {
  snapshotUid: string;
  hrefFor: (file: string, line: number) => string;
}) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const [mode, setMode] = useState<Mode>("hybrid");
  const query = useDebouncedQuery(text);
  const results = useQuery({
    ...trpc.snapshots.search.queryOptions({ snapshotUid, query, mode, k: 20 }),
    enabled: query.length > 0,
  });

  return (
    <div className="mb-6">
      <div className="flex gap-2">
        <div className="relative flex-1">
          <Search className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-zinc-400" aria-hidden />
          <Input
            aria-label="Search the code"
            placeholder="Search the code: names, comments, what it does…"
            value={text}
            onChange={(e) => setText(e.target.value)}
            className="pl-8"
          />
        </div>
        <select
          aria-label="Search mode"
          value={mode}
          onChange={(e) => setMode(e.target.value as Mode)}
          className="rounded-md border border-zinc-300 bg-white px-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        >
          <option value="hybrid">Hybrid</option>
          <option value="fulltext">Full text</option>
          <option value="vector">Semantic</option>
        </select>
      </div>
      {query && results.isPending && <DelayedSkeleton rows={2} />}
      {results.isError && (
        <p role="alert" className="mt-2 text-sm text-red-600">
          {errorInfo(results.error).message}
        </p>
      )}
      {results.data && (
        <Card className="mt-2 max-h-96 overflow-auto">
          {results.data.length === 0 && <p className="p-3 text-sm text-zinc-500">Nothing matches “{query}”.</p>}
          <ul aria-label="Search results" className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {results.data.map((r, i) => (
              <li key={`${r.file}:${r.startLine}:${i}`}>
                <Link
                  href={hrefFor(r.file, r.startLine)}
                  className={cx("block px-3 py-2 hover:bg-zinc-50 dark:hover:bg-zinc-800/50")}
                >
                  <p className="font-mono text-xs text-brand-600">
                    {r.file}:{r.startLine}–{r.endLine}{" "}
                    {r.symbolPath && <span className="text-zinc-500">· {r.symbolPath}</span>}
                  </p>
                  <pre className="mt-1 line-clamp-3 whitespace-pre-wrap font-mono text-xs text-zinc-700 dark:text-zinc-300">
                    {highlightTerms(r.snippet, query)}
                  </pre>
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </div>
  );
}
