"use client";
/**
 * The parts every search shows (code, knowledge bases): the box with its mode picker, and under it a
 * skeleton while the query runs, the error, "nothing matches" or the hits. Each search renders its own hits.
 */
import type { UseQueryResult } from "@tanstack/react-query";
import { Search } from "lucide-react";
import { useState, type ReactNode } from "react";
import { errorInfo } from "@/app/_lib/trpc.ts";
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

/** The hits of a search (`children` renders them as list items); `running` says a query was sent. */
export function SearchResults<T>({
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
          <ul aria-label="Search results" className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {children(results.data)}
          </ul>
        </Card>
      )}
    </>
  );
}
