"use client";
/** Search one knowledge base: hybrid (default), full-text or semantic; hits name the document and lines, terms highlighted. */
import { useQuery } from "@tanstack/react-query";
import { MatchBadge, SearchBox, SearchResults, useSearchInput } from "@/app/_components/search-box.tsx";
import { highlightTerms } from "@/app/_components/search-helpers.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";

export function KnowledgeSearch({ baseUid, disabled }: { baseUid: string; disabled?: string }) {
  const trpc = useTRPC();
  const search = useSearchInput();
  const { query, mode } = search;
  const running = query.length > 0 && !disabled;
  const results = useQuery({
    ...trpc.knowledge.search.queryOptions({ uid: baseUid, query, mode, k: 20 }),
    enabled: running,
    retry: false,
  });

  return (
    <section aria-label="Search this knowledge base">
      <SearchBox
        search={search}
        label="Search the documents"
        placeholder={disabled ?? "Search the documents…"}
        disabled={!!disabled}
      />
      <SearchResults query={query} results={results} running={running} className="max-h-[28rem]">
        {(hits) =>
          hits.map((r, i) => (
            <li key={`${r.documentUid}:${r.startLine}:${i}`} className="px-3 py-2">
              <p className="text-xs">
                <span className="font-medium text-brand-600">{r.documentName}</span>
                <span className="text-zinc-500">
                  {" "}
                  · lines {r.startLine}–{r.endLine}
                  {r.title && r.title !== r.documentName ? ` · ${r.title}` : ""}
                </span>
                <MatchBadge match={r.match} />
              </p>
              <p className="mt-1 line-clamp-4 whitespace-pre-wrap text-sm text-zinc-700 dark:text-zinc-300">
                {highlightTerms(r.snippet, query)}
              </p>
            </li>
          ))
        }
      </SearchResults>
    </section>
  );
}
