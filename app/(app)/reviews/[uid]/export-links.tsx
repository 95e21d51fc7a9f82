"use client";
/** A review's report to download: Markdown, SARIF or JSON (the export API). */
import { Download } from "lucide-react";

const FORMATS = [
  ["md", "Markdown"],
  ["sarif", "SARIF"],
  ["json", "JSON"],
] as const;

export function ExportLinks({ reviewUid }: { reviewUid: string }) {
  const exportHref = (format: string) => `/api/reviews/${reviewUid}/export?format=${format}`;
  return (
    <div className="mb-6 flex flex-wrap items-center gap-2" aria-label="Export">
      <span className="text-sm text-zinc-500">Export</span>
      {FORMATS.map(([format, label]) => (
        <a
          key={format}
          href={exportHref(format)}
          download
          className="inline-flex items-center gap-1 rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          <Download className="size-3.5" aria-hidden /> {label}
        </a>
      ))}
    </div>
  );
}
