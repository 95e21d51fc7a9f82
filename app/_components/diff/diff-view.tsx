"use client";
/**
 * The app's one diff view: additions green, deletions red, hunk headers muted, line numbers on both
 * sides when known. Used by a finding's suggested fix, a pipeline's versions and the builder
 * assistant's proposals. Text only, never HTML.
 */
import { cx } from "../ui.tsx";
import type { DiffLine } from "@/server/shared/diff-lines.ts";

const KIND_CLASS: Record<DiffLine["kind"], string> = {
  same: "",
  add: "bg-green-50 text-green-900 dark:bg-green-950/50 dark:text-green-200",
  del: "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-200",
  hunk: "bg-brand-50 text-brand-700 dark:bg-brand-700/20 dark:text-brand-100",
  meta: "font-semibold text-zinc-500",
};
const SIGN: Record<DiffLine["kind"], string> = { same: " ", add: "+", del: "−", hunk: "", meta: "" };

export function DiffView({
  lines,
  label,
  title,
  className,
}: {
  lines: readonly DiffLine[];
  /** The accessible name: "<label> diff". */
  label: string;
  /** A visible heading above the diff. */
  title?: string;
  className?: string;
}) {
  if (!lines.some((l) => l.kind === "add" || l.kind === "del"))
    return <p className="text-sm text-zinc-500">{label}: no changes.</p>;
  const numbered = lines.some((l) => l.old !== undefined || l.new !== undefined);
  return (
    <div className={className}>
      {title && <h4 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">{title}</h4>}
      <pre
        className="max-h-96 overflow-auto rounded-md border border-zinc-200 text-[12.5px] leading-5 dark:border-zinc-800"
        aria-label={`${label} diff`}
      >
        {lines.map((l, i) => (
          <div key={i} className={cx("flex whitespace-pre", KIND_CLASS[l.kind])} data-kind={l.kind}>
            {numbered && (
              <>
                <span className="w-10 shrink-0 select-none pr-2 text-right text-zinc-400">{l.old ?? ""}</span>
                <span className="w-10 shrink-0 select-none pr-2 text-right text-zinc-400">{l.new ?? ""}</span>
              </>
            )}
            <span className="w-4 shrink-0 select-none pl-1">{SIGN[l.kind]}</span>
            <span className="pr-3">{l.text || " "}</span>
          </div>
        ))}
      </pre>
    </div>
  );
}
