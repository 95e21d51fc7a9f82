"use client";
/**
 * Under a review's title: its project, and — for a pull request's review — the PR (title, number,
 * branch, a link to it on the forge) with each finding Argus posted there as a link to its comment.
 */
import { useQuery } from "@tanstack/react-query";
import { ExternalLink, GitPullRequest } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/app/_lib/trpc.ts";

export function ReviewOrigin({
  reviewUid,
  projectUid,
  projectName,
}: {
  reviewUid: string;
  projectUid: string;
  projectName: string;
}) {
  const trpc = useTRPC();
  const pull = useQuery(trpc.forges.pullOfReview.queryOptions({ reviewUid }, { staleTime: 30_000 }));
  const pr = pull.data;
  return (
    <div className="-mt-4 mb-5 space-y-1 text-sm">
      <p>
        <Link href={`/projects/${projectUid}`} className="text-brand-600 hover:underline">
          {projectName}
        </Link>
      </p>
      {pr && (
        <div aria-label="Pull request" className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <GitPullRequest className="size-4 text-zinc-500" aria-hidden />
          <a href={pr.url} target="_blank" rel="noreferrer" className="font-medium hover:underline">
            {pr.title} <span className="text-zinc-500">#{pr.number}</span>
            <ExternalLink className="ml-1 inline size-3" aria-hidden />
          </a>
          <code className="rounded bg-zinc-100 px-1.5 text-xs dark:bg-zinc-800" title="Branch">
            {pr.headRef}
          </code>
          <span className="text-xs text-zinc-500">
            {pr.repo} · {pr.state}
          </span>
          {pr.findings.length > 0 && (
            <ul className="flex w-full flex-wrap gap-x-3 text-xs" aria-label="Findings on the pull request">
              <li className="text-zinc-500">On the PR:</li>
              {pr.findings.map((f) => (
                <li key={f.fingerprint}>
                  <a href={f.url} target="_blank" rel="noreferrer" className="text-brand-600 hover:underline">
                    {f.path}:{f.line}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
