"use client";
/** The snapshot browser's Files tab: the filterable file tree, the open file in the code viewer, and its outline. */
import Link from "next/link";
import { CodeViewer } from "./code-viewer.tsx";
import { FileTree } from "./file-tree.tsx";
import type { SnapshotBrowserState } from "./use-snapshot-browser.ts";
import { Card, DelayedSkeleton, EmptyState, Input } from "./ui.tsx";

export function SnapshotFilesTab({
  browser,
  line,
  endLine,
}: {
  browser: SnapshotBrowserState;
  line?: number;
  endLine?: number;
}) {
  const { tree, filter, setFilter, current, fileQuery, outline, href, visiblePaths, language } = browser;
  return (
    <div className="grid gap-4 lg:grid-cols-[16rem_1fr_14rem]">
      <Card className="max-h-[70vh] overflow-auto p-2">
        <Input
          aria-label="Filter files"
          placeholder="Filter files…"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          className="mb-2"
        />
        {tree.isPending && <DelayedSkeleton rows={4} />}
        <FileTree
          paths={visiblePaths}
          current={current}
          filtered={filter !== ""}
          hrefFor={(path) => href({ file: path })}
        />
      </Card>
      <div className="min-w-0">
        {current && <p className="mb-2 font-mono text-sm">{current}</p>}
        {fileQuery.isPending && current && <DelayedSkeleton rows={6} />}
        {fileQuery.data && (
          <>
            {fileQuery.data.truncated && (
              <p className="mb-2 text-xs text-amber-700">
                Showing the first 1 MB of {Math.round(fileQuery.data.size / 1024)} KB.
              </p>
            )}
            <CodeViewer
              content={fileQuery.data.content}
              language={language}
              line={line}
              endLine={endLine}
              linkFor={(n) => href({ file: current, line: n })}
            />
          </>
        )}
        {tree.data?.length === 0 && (
          <EmptyState title="No indexable files">
            Everything in this snapshot was skipped (binary, generated or ignored).
          </EmptyState>
        )}
      </div>
      <Card className="max-h-[70vh] overflow-auto p-3">
        <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-zinc-500">Outline</h3>
        <ul aria-label="Outline" className="space-y-0.5 text-xs">
          {outline.data?.map((s, i) => (
            <li key={`${s.name}-${i}`}>
              <Link
                href={href({ file: current, line: s.startLine })}
                className="block truncate hover:underline"
                title={s.signature}
              >
                <span className="text-zinc-400">{s.kind}</span> {s.container ? `${s.container}.` : ""}
                {s.name}
              </Link>
            </li>
          ))}
          {outline.data?.length === 0 && <li className="text-zinc-500">No symbols in this file.</li>}
        </ul>
      </Card>
    </div>
  );
}
