"use client";
import { useQuery } from "@tanstack/react-query";
import { FolderGit2, MessageSquareText, Users } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Card, DelayedSkeleton, PageHeader } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

function Stat({ href, label, value, icon }: { href: string; label: string; value: number | undefined; icon: ReactNode }) {
  return (
    <Link href={href} className="block rounded-lg focus-visible:outline-2">
      <Card className="flex items-center gap-4 p-5 transition-colors hover:border-brand-500">
        <div className="rounded-md bg-brand-50 p-2.5 text-brand-600 dark:bg-brand-700/20">{icon}</div>
        <div>
          <p className="text-2xl font-semibold tabular-nums">{value ?? "–"}</p>
          <p className="text-sm text-zinc-500">{label}</p>
        </div>
      </Card>
    </Link>
  );
}

export default function DashboardPage() {
  const trpc = useTRPC();
  const { user, workspace } = useWorkspace();
  const projects = useQuery(trpc.projects.list.queryOptions({ workspaceId: workspace.id }));
  const prompts = useQuery(trpc.prompts.list.queryOptions({ workspaceId: workspace.id }));
  const members = useQuery(trpc.account.members.queryOptions({ workspaceId: workspace.id }));

  return (
    <>
      <PageHeader title={`Welcome, ${user.name.split(/\s+/)[0]}`} description={workspace.name} />
      <div className="grid gap-4 sm:grid-cols-3">
        <Stat href="/projects" label="Projects" value={projects.data?.length} icon={<FolderGit2 className="size-5" />} />
        <Stat href="/prompts" label="Review prompts" value={prompts.data?.length} icon={<MessageSquareText className="size-5" />} />
        <Stat href="/settings" label="Members" value={members.data?.length} icon={<Users className="size-5" />} />
      </div>
      <h2 className="mb-3 mt-10 text-sm font-semibold uppercase tracking-wide text-zinc-500">Recent projects</h2>
      {projects.isPending && <DelayedSkeleton rows={2} />}
      {projects.data?.length === 0 && (
        <p className="text-sm text-zinc-500">
          No projects yet.{" "}
          <Link href="/projects" className="text-brand-600 hover:underline">
            Create the first one
          </Link>
          .
        </p>
      )}
      <ul className="space-y-2">
        {projects.data?.slice(0, 5).map((p) => (
          <li key={p.uid}>
            <Link href={`/projects/${p.uid}`} className="text-sm font-medium hover:underline">
              {p.name}
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
