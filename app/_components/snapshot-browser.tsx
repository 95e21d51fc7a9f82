"use client";
/** A ready snapshot: language mix, file tree (folders fold; opens on the README) with a code viewer and outline, static findings with filters. */
import Link from "next/link";
import { CodeSearch } from "./code-search.tsx";
import { SnapshotFilesTab } from "./snapshot-files-tab.tsx";
import { SnapshotFindingsTab } from "./snapshot-findings-tab.tsx";
import { useSnapshotBrowser, type SnapshotTab } from "./use-snapshot-browser.ts";
import { cx } from "./ui.tsx";

export function SnapshotBrowser({
  projectUid,
  snapshotUid,
  file,
  line,
  endLine,
  tab,
}: {
  projectUid: string;
  snapshotUid: string;
  file?: string;
  line?: number;
  endLine?: number;
  tab: SnapshotTab;
}) {
  const browser = useSnapshotBrowser({ projectUid, snapshotUid, file, tab });
  const { href } = browser;

  return (
    <div>
      <CodeSearch snapshotUid={snapshotUid} hrefFor={(f, l) => href({ file: f, line: l })} />
      <div
        role="tablist"
        aria-label="Snapshot"
        className="mb-4 flex gap-1 border-b border-zinc-200 dark:border-zinc-800"
      >
        {(["files", "findings"] as const).map((t) => (
          <Link
            key={t}
            href={href({ tab: t })}
            role="tab"
            aria-selected={tab === t}
            className={cx(
              "-mb-px border-b-2 px-3 py-1.5 text-sm capitalize",
              tab === t ? "border-brand-600 font-medium" : "border-transparent text-zinc-500",
            )}
          >
            {t}
          </Link>
        ))}
      </div>
      {tab === "files" && <SnapshotFilesTab browser={browser} line={line} endLine={endLine} />}
      {tab === "findings" && <SnapshotFindingsTab browser={browser} />}
    </div>
  );
}
