"use client";
/** Search one knowledge base: hybrid (default), full-text or semantic; hits name the document and lines, terms highlighted. */
import { useQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import { useState } from "react";
import { highlightTerms, useDebouncedQuery } from "@/app/_components/search-helpers.tsx";
import { Card, DelayedSkeleton, Input } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

type Mode = "hybrid" | "fulltext" | "vector";

export function KnowledgeSearch({ baseUid, disabled }: { baseUid: string; disabled?: string }) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const [mode, setMode] = useState<Mode>("hybrid");
  const query = useDebouncedQuery(text);
  const results = useQuery({
    ...trpc.knowledge.search.queryOptions({ uid: baseUid, query, mode, k: 20 }),
    enabled: query.length > 0 && !disabled,
    retry: false,
  });

  return (
    <section aria-label="Search this knowledge base">
      <div className="flex gap-2">
        <div className="relative flex-1">
          <Search className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-zinc-400" aria-hidden />
          <Input
            aria-label="Search the documents"
            placeholder={disabled ?? "Search the documents…"}
            disabled={!!disabled}
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
      {query && !disabled && results.isPending && <DelayedSkeleton rows={2} />}
      {results.isError && (
        <p role="alert" className="mt-2 text-sm text-red-600">
          {errorInfo(results.error).message}
        </p>
      )}
      {results.data && (
        <Card className="mt-2 max-h-[28rem] overflow-auto">
          {results.data.length === 0 && <p className="p-3 text-sm text-zinc-500">Nothing matches “{query}”.</p>}
          <ul aria-label="Search results" className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {results.data.map((r, i) => (
              <li key={`${r.documentUid}:${r.startLine}:${i}`} className="px-3 py-2">
                <p className="text-xs">
                  <span className="font-medium text-brand-600">{r.documentName}</span>
                  <span className="text-zinc-500">
                    {" "}
                    · lines {r.startLine}–{r.endLine}
                    {r.title && r.title !== r.documentName ? ` · ${r.title}` : ""}
                  </span>
                </p>
                <p className="mt-1 line-clamp-4 whitespace-pre-wrap text-sm text-zinc-700 dark:text-zinc-300">
                  {highlightTerms(r.snippet, query)}
                </p>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </section>
  );
}
