"use client";
/** The pipelines list's filters: the search box (searching as one types) and the tag toggles. */
import { Search } from "lucide-react";
import { useState } from "react";
import { Button, Input, cx } from "@/app/_components/ui.tsx";

export function PipelineFilters({
  q,
  tags,
  allTags,
  onChange,
}: {
  /** The search in the address. */
  q: string;
  /** The tags filtered on. */
  tags: string[];
  /** Every tag a pipeline has. */
  allTags: string[];
  onChange: (next: { q?: string; tags?: string[] }) => void;
}) {
  const [text, setText] = useState(q);
  const filtering = Boolean(q || tags.length);
  return (
    <>
      <form
        role="search"
        className="mb-3 flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          onChange({ q: text.trim() });
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
              onChange({ q: e.target.value.trim() });
            }}
          />
        </div>
        {filtering && (
          <Button
            variant="ghost"
            onClick={() => {
              setText("");
              onChange({ q: "", tags: [] });
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
                onClick={() => onChange({ tags: on ? tags.filter((x) => x !== t) : [...tags, t] })}
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
    </>
  );
}
