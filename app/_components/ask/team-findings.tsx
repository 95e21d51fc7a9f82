"use client";
/** The project's "team findings": findings the team wrote from Argus's answers and kept on the project. */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { SeverityBadge } from "../review/badges.tsx";
import { codeHref } from "../review/format.ts";
import { Card } from "../ui.tsx";

export function TeamFindings({ projectUid }: { projectUid: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.ask.teamFindings.queryOptions({ projectUid }));
  if (!list.data?.length) return null;
  return (
    <Card className="p-4">
      <h2 className="mb-2 text-sm font-semibold">Team findings</h2>
      <ul className="divide-y divide-zinc-100 text-sm dark:divide-zinc-800" aria-label="Team findings">
        {list.data.map((f) => (
          <li key={f.uid} className="flex flex-wrap items-baseline gap-2 py-1.5">
            <SeverityBadge severity={f.severity} />
            <span className="font-medium">{f.title}</span>
            <Link
              href={codeHref(projectUid, f.snapshotUid, f.file, f.startLine, f.endLine)}
              className="font-mono text-xs text-brand-600 underline"
            >
              {f.file}:{f.startLine}-{f.endLine}
            </Link>
            <span className="text-xs text-zinc-500">
              {f.category} · by {f.createdBy}
            </span>
          </li>
        ))}
      </ul>
    </Card>
  );
}
