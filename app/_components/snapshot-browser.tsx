"use client";
/** A ready snapshot: language mix, file tree (folders fold; opens on the README) with a code viewer and outline, static findings with filters. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { SEVERITIES, type Severity } from "@/server/shared/findings.ts";
import { CodeSearch } from "./code-search.tsx";
import { CodeViewer } from "./code-viewer.tsx";
import { defaultFile, FileTree } from "./file-tree.tsx";
import { Badge, Card, DelayedSkeleton, EmptyState, Input, Select, cx } from "./ui.tsx";

const severityTone = { critical: "amber", high: "amber", medium: "zinc", low: "zinc", info: "zinc" } as const;

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
  tab: "files" | "findings";
}) {
  const trpc = useTRPC();
  const tree = useQuery(trpc.snapshots.tree.queryOptions({ snapshotUid }));
  const [filter, setFilter] = useState("");
  const [severity, setSeverity] = useState<Severity | "">("");
  // Without a file asked for: the README (not whatever sorts first, e.g. .dockerignore).
  const allPaths = useMemo(() => (tree.data ?? []).map((f) => f.path), [tree.data]);
  const current = file ?? defaultFile(allPaths);
  const fileQuery = useQuery({
    ...trpc.snapshots.file.queryOptions({ snapshotUid, path: current ?? "" }),
    enabled: !!current && tab === "files",
  });
  const outline = useQuery({
    ...trpc.snapshots.outline.queryOptions({ snapshotUid, path: current ?? "" }),
    enabled: !!current && tab === "files",
  });
  const findings = useQuery({
    ...trpc.snapshots.findings.queryOptions({ snapshotUid, severity: severity || undefined }),
    enabled: tab === "findings",
  });
  const href = (params: { file?: string; line?: number; tab?: string }) => {
    const q = new URLSearchParams({
      snapshot: snapshotUid,
      ...(params.tab ? { tab: params.tab } : {}),
      ...(params.file ? { file: params.file } : {}),
      ...(params.line ? { line: String(params.line) } : {}),
    });
    // No #L fragment: the viewer scrolls to ?line= itself (Next 16's router failed on hash + query navigations).
    return `/projects/${projectUid}?${q.toString()}`;
  };
  const visible = useMemo(
    () => (tree.data ?? []).filter((f) => f.path.toLowerCase().includes(filter.toLowerCase())),
    [tree.data, filter],
  );
  const visiblePaths = useMemo(() => visible.map((f) => f.path), [visible]);
  const language = tree.data?.find((f) => f.path === current)?.language ?? "";

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
      {tab === "files" && (
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
      )}
      {tab === "findings" && (
        <div>
          <div className="mb-3 flex items-center gap-2">
            <label htmlFor="severity" className="text-sm">
              Severity
            </label>
            <Select
              size="compact"
              id="severity"
              value={severity}
              onChange={(e) => setSeverity(e.target.value as typeof severity)}
            >
              <option value="">All</option>
              {SEVERITIES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </div>
          {findings.isPending && <DelayedSkeleton rows={3} />}
          {findings.data?.length === 0 && (
            <EmptyState title="No static findings">
              The pre-pass found nothing{severity ? ` at ${severity} severity` : ""}. The review agent still reads the
              code.
            </EmptyState>
          )}
          <ul aria-label="Findings" className="space-y-2">
            {findings.data?.map((f, i) => (
              <li key={i}>
                <Card className="p-3 text-sm">
                  <div className="flex flex-wrap items-center gap-2">
                    <Badge tone={severityTone[f.severity as keyof typeof severityTone] ?? "zinc"}>{f.severity}</Badge>
                    <span className="font-mono text-xs text-zinc-500">
                      {f.tool}/{f.ruleId}
                    </span>
                    <Link
                      href={href({ file: f.file, line: f.startLine })}
                      className="font-mono text-xs text-brand-600 hover:underline"
                    >
                      {f.file}:{f.startLine}
                    </Link>
                  </div>
                  <p className="mt-1">{f.message}</p>
                </Card>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
