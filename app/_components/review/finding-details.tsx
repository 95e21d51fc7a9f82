"use client";
/**
 * An opened finding: explanation, evidence, data flow (taint findings: each step opens the code),
 * suggested fix and diff, the verification note, then its actions — open the lines in the code viewer,
 * mark false positive / restore, link to it — and where it came from (engine, rule, CWE).
 */
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { Button } from "../ui.tsx";
import { DataFlow } from "./data-flow.tsx";
import { codeHref } from "./format.ts";
import { Markdown } from "./markdown.tsx";
import type { ReviewFindingRow } from "./types.ts";
import { DiffView } from "../diff/diff-view.tsx";
import { parseUnifiedDiff } from "@/server/shared/diff-lines.ts";
import { cweOf } from "@/server/shared/cwe.ts";

/** The link to a finding of the page at `pathname`: `?finding=<fingerprint>` (read by the page). */
export function findingHref(pathname: string, fingerprint: string): string {
  return `${pathname}?finding=${encodeURIComponent(fingerprint)}`;
}

export interface FindingDetailsProps {
  finding: ReviewFindingRow;
  id: string;
  projectUid: string | null;
  snapshotUid: string | null;
  canEdit: boolean;
  /** Whether this finding's false-positive mark is being saved. */
  busy: boolean;
  onDismiss: (f: ReviewFindingRow, dismissed: boolean) => void;
  details?: (f: ReviewFindingRow) => ReactNode;
}

function Heading({ children }: { children: ReactNode }) {
  return <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">{children}</p>;
}

export function FindingDetails({
  finding: f,
  id,
  projectUid,
  snapshotUid,
  canEdit,
  busy,
  onDismiss,
  details,
}: FindingDetailsProps) {
  return (
    <div id={id} className="space-y-3 px-9 pb-4 text-sm">
      <Markdown>{f.explanation}</Markdown>
      {f.evidence.trim() && (
        <div>
          <Heading>Evidence</Heading>
          <pre className="overflow-x-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-[12.5px] leading-5 dark:border-zinc-800 dark:bg-zinc-900">
            {f.evidence}
          </pre>
        </div>
      )}
      {f.trace && f.trace.length > 0 && <DataFlow trace={f.trace} projectUid={projectUid} snapshotUid={snapshotUid} />}
      {f.suggestedFix && (
        <div>
          <Heading>Suggested fix</Heading>
          <Markdown>{f.suggestedFix}</Markdown>
        </div>
      )}
      {f.diff && <DiffView lines={parseUnifiedDiff(f.diff)} label="Suggested" />}
      {f.verificationNote && (
        <div>
          <Heading>{f.verification === "confirmed" ? "Verification" : "Verification note"}</Heading>
          <p className="whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">{f.verificationNote}</p>
        </div>
      )}
      <FindingActions
        finding={f}
        projectUid={projectUid}
        snapshotUid={snapshotUid}
        canEdit={canEdit}
        busy={busy}
        onDismiss={onDismiss}
      />
      {details?.(f)}
    </div>
  );
}

function FindingActions({
  finding: f,
  projectUid,
  snapshotUid,
  canEdit,
  busy,
  onDismiss,
}: Omit<FindingDetailsProps, "id" | "details">) {
  const pathname = usePathname();
  return (
    <div className="flex flex-wrap items-center gap-2">
      {projectUid && (
        <Link
          href={codeHref(projectUid, snapshotUid, f.file, f.startLine, f.endLine)}
          className="inline-flex items-center gap-1 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
        >
          <ExternalLink className="size-3.5" aria-hidden /> Open in code
        </Link>
      )}
      {canEdit &&
        (f.dismissed ? (
          <Button variant="secondary" busy={busy} onClick={() => onDismiss(f, false)}>
            Restore
          </Button>
        ) : (
          <Button variant="secondary" busy={busy} onClick={() => onDismiss(f, true)}>
            Mark false positive
          </Button>
        ))}
      <Link
        href={findingHref(pathname, f.fingerprint)}
        scroll={false}
        className="text-xs text-brand-600 hover:underline"
      >
        Link to this finding
      </Link>
      <FindingSource finding={f} />
    </div>
  );
}

/** Which engine found it, its rule, and for static rules the CWE entries the rule maps to. */
function FindingSource({ finding: f }: { finding: ReviewFindingRow }) {
  return (
    <span className="text-xs text-zinc-500">
      {f.source === "static"
        ? "static analysis"
        : f.source === "team"
          ? "the team, from Argus's answer"
          : "review agent"}
      {f.ruleId && (
        <>
          {" · rule "}
          <code className="font-mono">{f.ruleId}</code>
        </>
      )}
      {f.source === "static" &&
        cweOf(f.ruleId).map((c) => (
          <span key={c}>
            {" · "}
            <a
              href={`https://cwe.mitre.org/data/definitions/${c.slice(4)}.html`}
              target="_blank"
              rel="noreferrer"
              className="hover:underline"
            >
              {c}
            </a>
          </span>
        ))}
    </span>
  );
}
