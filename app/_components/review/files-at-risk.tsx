"use client";
/** The per-file rollup, worst score first; each file links to its code (when there is a code viewer to open). */
import Link from "next/link";
import { Card } from "../ui.tsx";
import { ScoreChip, SeverityBadge } from "./badges.tsx";
import { codeHref } from "./format.ts";
import { SEVERITIES, type ReviewDetail } from "./types.ts";

export function FilesAtRisk({
  files,
  projectUid,
  snapshotUid,
}: {
  files: ReviewDetail["files"];
  /** null: no code viewer to link to (a share link's page). */
  projectUid: string | null;
  snapshotUid: string | null;
}) {
  if (files.length === 0) return <p className="text-sm text-zinc-500">No file has findings.</p>;
  const sorted = [...files].sort((a, b) => a.score - b.score || a.path.localeCompare(b.path));
  return (
    <Card>
      <ul aria-label="Files at risk" className="max-h-96 divide-y divide-zinc-200 overflow-y-auto dark:divide-zinc-800">
        {sorted.map((f) => (
          <li key={f.path} className="flex flex-wrap items-center gap-3 px-4 py-2">
            <span className="w-8 text-right">
              <ScoreChip score={f.score} label="File score (0–100, higher is better)" />
            </span>
            {projectUid ? (
              <Link
                href={codeHref(projectUid, snapshotUid, f.path, 1)}
                className="min-w-0 flex-1 truncate font-mono text-xs hover:underline"
                title={f.path}
              >
                {f.path}
              </Link>
            ) : (
              <span className="min-w-0 flex-1 truncate font-mono text-xs" title={f.path}>
                {f.path}
              </span>
            )}
            <span className="flex flex-wrap gap-1">
              {SEVERITIES.filter((s) => (f.counts[s] ?? 0) > 0).map((s) => (
                <SeverityBadge key={s} severity={s} count={f.counts[s]} />
              ))}
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
