"use client";
/** What the search boxes (code, knowledge bases) share: a debounced query and highlighted terms. */
import { useEffect, useState } from "react";

/** The input's text, settled for `ms` (trimmed), so typing does not send a query per key. */
export function useDebouncedQuery(text: string, ms = 250): string {
  const [query, setQuery] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim()), ms);
    return () => clearTimeout(t);
  }, [text, ms]);
  return query;
}

/**
 * Wraps the query's words (letters and digits in any script) in <mark>, with their other endings
 * (search matched them by stem: "passwords" finds "password", "hashed" finds "hashing"); React
 * escapes the rest — snippets are user code and documents.
 */
export function highlightTerms(snippet: string, query: string) {
  const words = query
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((w) => w.length > 1)
    .map((w) => {
      const stem = w.length >= 5 ? w.slice(0, Math.max(4, w.length - 2)) : w;
      return stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + (stem.length < w.length ? "\\p{L}*" : "");
    });
  if (words.length === 0) return snippet;
  const parts = snippet.split(new RegExp(`(${words.join("|")})`, "giu"));
  return parts.map((p, i) =>
    i % 2 === 1 ? (
      <mark key={i} className="rounded bg-amber-200 px-0.5 dark:bg-amber-700/60">
        {p}
      </mark>
    ) : (
      p
    ),
  );
}
