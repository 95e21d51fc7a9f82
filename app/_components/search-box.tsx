"use client";
/**
 * The parts every search shows (code, knowledge bases): the box with its mode picker, and under it a
 * skeleton while the query runs, the error, "nothing matches" or the hits. Each search renders its own hits.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { Search } from "lucide-react";
import { useState, type ReactNode } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
import { NO_GOOD_MATCH_TEXT, noGoodMatch, type MatchLabel } from "@/server/shared/search-match.ts";
import { useDebouncedQuery } from "./search-helpers.tsx";
import { Card, DelayedSkeleton, Input, Select, cx } from "./ui.tsx";

export type SearchMode = "hybrid" | "fulltext" | "vector";

export interface SearchInput {
  text: string;
  setText(text: string): void;
  mode: SearchMode;
  setMode(mode: SearchMode): void;
  /** The text once typing settles, trimmed: what to send. */
  query: string;
}

/** What the user typed and the mode they chose (hybrid by default). */
export function useSearchInput(): SearchInput {
  const [text, setText] = useState("");
  const [mode, setMode] = useState<SearchMode>("hybrid");
  return { text, setText, mode, setMode, query: useDebouncedQuery(text) };
}

export function SearchBox({
  search,
  label,
  placeholder,
  disabled,
}: {
  search: SearchInput;
  label: string;
  placeholder: string;
  disabled?: boolean;
}) {
  return (
    <div className="flex gap-2">
      <div className="relative flex-1">
        <Search className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-zinc-400" aria-hidden />
        <Input
          aria-label={label}
          placeholder={placeholder}
          disabled={disabled}
          value={search.text}
          onChange={(e) => search.setText(e.target.value)}
          className="pl-8"
        />
      </div>
      <Select
        size="compact"
        aria-label="Search mode"
        value={search.mode}
        onChange={(e) => search.setMode(e.target.value as SearchMode)}
      >
        <option value="hybrid">Hybrid</option>
        <option value="fulltext">Full text</option>
        <option value="vector">Semantic</option>
      </Select>
    </div>
  );
}

/** A hit's match label: strong (it looks like an answer) or weak (it only shares a word or two). */
export function MatchBadge({ match }: { match: MatchLabel }) {
  return (
    <span
      data-match={match}
      className={cx(
        "ml-2 rounded px-1 py-px align-middle text-[10px] font-medium uppercase tracking-wide",
        match === "strong"
          ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-300"
          : "bg-zinc-100 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400",
      )}
    >
      {match} match
    </span>
  );
}

/**
 * The hits of a search (`children` renders them as list items); `running` says a query was sent.
 * When no hit is a strong match the list is headed "No good match" — the hits below are only the
 * nearest ones.
 */
export function SearchResults<T extends { match: MatchLabel }>({
  query,
  results,
  running,
  className,
  children,
}: {
  query: string;
  results: UseQueryResult<T[], unknown>;
  running: boolean;
  className?: string;
  children: (hits: T[]) => ReactNode;
}) {
  return (
    <>
      {running && results.isPending && <DelayedSkeleton rows={2} />}
      {results.isError && (
        <p role="alert" className="mt-2 text-sm text-red-600">
          {errorInfo(results.error).message}
        </p>
      )}
      {results.data && (
        <Card className={cx("mt-2 overflow-auto", className)}>
          {results.data.length === 0 && <p className="p-3 text-sm text-zinc-500">Nothing matches “{query}”.</p>}
          {results.data.length > 0 && noGoodMatch(results.data) && (
            <p role="status" className="border-b border-zinc-200 p-3 text-sm text-zinc-600 dark:border-zinc-800">
              <span className="font-medium">{NO_GOOD_MATCH_TEXT}</span> for “{query}”. The nearest results, none of
              which looks like an answer:
            </p>
          )}
          <ul aria-label="Search results" className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {children(results.data)}
          </ul>
        </Card>
      )}
    </>
  );
}
