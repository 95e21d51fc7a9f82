"use client";
/**
 * "Duplicate of …" for a finding's vote: a search over the review's other findings (title, file,
 * line; server/shared/finding-search.ts), showing the first matches. A review may have thousands of
 * findings: a plain <select> would build an option for each of them every time a finding is opened.
 */
import { Combobox, ComboboxInput, ComboboxOption, ComboboxOptions } from "@headlessui/react";
import { X } from "lucide-react";
import { useMemo, useState } from "react";
import { cx } from "../ui.tsx";
import type { ReviewFindingRow } from "../review/types.ts";
import { findingLabel, matchingFindings } from "@/server/shared/finding-search.ts";

export function DuplicatePicker({
  findings,
  self,
  value,
  disabled,
  onChange,
}: {
  findings: readonly ReviewFindingRow[];
  /** The finding being voted on (not offered). */
  self: string;
  /** The fingerprint it is marked a duplicate of, or null. */
  value: string | null;
  disabled: boolean;
  /** A fingerprint, or null to take the "duplicate" vote back. */
  onChange: (fingerprint: string | null) => void;
}) {
  const [query, setQuery] = useState("");
  const { shown, more } = useMemo(() => matchingFindings(findings, self, query), [findings, self, query]);
  const current = useMemo(() => findings.find((f) => f.fingerprint === value) ?? null, [findings, value]);
  return (
    <div className="relative flex items-center gap-1">
      <Combobox
        value={current}
        by="fingerprint"
        disabled={disabled}
        immediate
        onChange={(f: ReviewFindingRow | null) => {
          setQuery("");
          if (f) onChange(f.fingerprint);
        }}
        onClose={() => setQuery("")}
      >
        <ComboboxInput
          aria-label="Duplicate of"
          placeholder="duplicate of…"
          className="w-56 rounded-md border border-zinc-300 bg-white px-2 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900"
          displayValue={(f: ReviewFindingRow | null) => (f ? findingLabel(f) : "")}
          onChange={(e) => setQuery(e.target.value)}
        />
        <ComboboxOptions
          anchor="bottom start"
          className="z-50 max-h-64 w-[28rem] overflow-y-auto rounded-md border border-zinc-200 bg-white p-1 text-xs shadow-lg empty:invisible dark:border-zinc-700 dark:bg-zinc-900"
        >
          {shown.map((f) => (
            <ComboboxOption
              key={f.fingerprint}
              value={f}
              className={({ focus }) =>
                cx("cursor-pointer truncate rounded px-2 py-1", focus && "bg-zinc-100 dark:bg-zinc-800")
              }
            >
              {findingLabel(f)}
            </ComboboxOption>
          ))}
          {shown.length === 0 && <p className="px-2 py-1 text-zinc-500">No other finding matches.</p>}
          {more && <p className="px-2 py-1 text-zinc-500">Type to narrow down ({findings.length - 1} findings).</p>}
        </ComboboxOptions>
      </Combobox>
      {value && (
        <button
          type="button"
          disabled={disabled}
          onClick={() => onChange(null)}
          aria-label="Not a duplicate"
          title="Not a duplicate"
          className="rounded p-0.5 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800"
        >
          <X className="size-3.5" aria-hidden />
        </button>
      )}
    </div>
  );
}
