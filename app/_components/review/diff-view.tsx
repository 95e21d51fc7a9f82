"use client";
/** A unified diff, line by line: additions green, deletions red, hunk headers muted. Text only, never HTML. */
import { cx } from "../ui.tsx";

function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "text-zinc-500 font-semibold";
  if (line.startsWith("@@")) return "bg-brand-50 text-brand-700 dark:bg-brand-700/20 dark:text-brand-100";
  if (line.startsWith("+")) return "bg-green-50 text-green-900 dark:bg-green-950/50 dark:text-green-200";
  if (line.startsWith("-")) return "bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-200";
  return "";
}

export function DiffView({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre
      aria-label="Suggested diff"
      className="overflow-x-auto rounded-md border border-zinc-200 text-[12.5px] leading-5 dark:border-zinc-800"
    >
      {lines.map((line, i) => (
        <div
          key={i}
          className={cx("whitespace-pre px-3", lineClass(line))}
          data-diff={
            line.startsWith("+") && !line.startsWith("+++")
              ? "add"
              : line.startsWith("-") && !line.startsWith("---")
                ? "del"
                : undefined
          }
        >
          {line || " "}
        </div>
      ))}
    </pre>
  );
}
