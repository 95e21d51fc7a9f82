/**
 * A taint finding's data flow, source → steps → sink, as a numbered list: each step opens the code
 * viewer at its file and line (the same link as "Open in code"), or is plain text where there is no
 * code viewer to open (a share link's page).
 */
import Link from "next/link";
import type { TraceStep } from "@/server/shared/findings.ts";
import { codeHref } from "./format.ts";

export function DataFlow({
  trace,
  projectUid,
  snapshotUid,
}: {
  trace: readonly TraceStep[];
  projectUid: string | null;
  snapshotUid: string | null;
}) {
  const last = trace.length - 1;
  return (
    <div>
      <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Data flow</p>
      <ol aria-label="Data flow" className="space-y-1">
        {trace.map((step, i) => {
          const where = `${step.file}:${step.line}`;
          const role = i === 0 ? "source" : i === last ? "sink" : null;
          const body = (
            <>
              <span className="w-5 shrink-0 text-right tabular-nums text-zinc-400">{i + 1}.</span>
              <code className="min-w-0 break-all font-mono text-[12.5px]">{step.label}</code>
              <span className="shrink-0 font-mono text-xs text-zinc-500">{where}</span>
              {role && (
                <span className="shrink-0 rounded bg-zinc-100 px-1.5 text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
                  {role}
                </span>
              )}
            </>
          );
          return (
            <li key={`${i}-${where}`}>
              {projectUid ? (
                <Link
                  href={codeHref(projectUid, snapshotUid, step.file, step.line)}
                  title={`Open ${where} in the code viewer`}
                  className="flex items-baseline gap-2 rounded px-1 py-0.5 hover:bg-zinc-100 dark:hover:bg-zinc-800"
                >
                  {body}
                </Link>
              ) : (
                <span className="flex items-baseline gap-2 px-1 py-0.5">{body}</span>
              )}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
