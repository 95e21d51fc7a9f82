"use client";
/** The snapshot browser's data: the file tree and its filter, the open file and its outline, the findings and their severity filter, and the links between them. */
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import type { Severity } from "@/server/shared/findings.ts";
import { defaultFile } from "./file-paths.ts";

export type SnapshotTab = "files" | "findings";

export function useSnapshotBrowser({
  projectUid,
  snapshotUid,
  file,
  tab,
}: {
  projectUid: string;
  snapshotUid: string;
  file?: string;
  tab: SnapshotTab;
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

  return {
    tree,
    filter,
    setFilter,
    severity,
    setSeverity,
    current,
    fileQuery,
    outline,
    findings,
    href,
    visiblePaths,
    language,
  };
}

export type SnapshotBrowserState = ReturnType<typeof useSnapshotBrowser>;
