"use client";
/** The snapshot browser's Findings tab: the static pre-pass's findings, filtered by severity, each linking to its line. */
import Link from "next/link";
import { SEVERITIES } from "@/server/shared/findings.ts";
import type { SnapshotBrowserState } from "./use-snapshot-browser.ts";
import { Badge, Card, DelayedSkeleton, EmptyState, Select } from "./ui.tsx";

const severityTone = { critical: "amber", high: "amber", medium: "zinc", low: "zinc", info: "zinc" } as const;

export function SnapshotFindingsTab({ browser }: { browser: SnapshotBrowserState }) {
  const { severity, setSeverity, findings, href } = browser;
  return (
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
          The pre-pass found nothing{severity ? ` at ${severity} severity` : ""}. The review agent still reads the code.
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
  );
}
