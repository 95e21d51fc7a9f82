"use client";
/** The dashboard: counts, recent reviews across projects (live while running), projects, and a first-run hint. */
import { useMutation, useQuery } from "@tanstack/react-query";
import { FolderGit2, MessageSquareText, Sparkles, Users } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { toast } from "sonner";
import { ReviewRows } from "@/app/_components/review/review-rows.tsx";
import { isActive } from "@/app/_components/review/types.ts";
import { Button, Card, DelayedSkeleton, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

function Stat({
  href,
  label,
  value,
  icon,
}: {
  href: string;
  label: string;
  value: number | undefined;
  icon: ReactNode;
}) {
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

function FirstRun() {
  const trpc = useTRPC();
  const router = useRouter();
  const { workspace, canEdit } = useWorkspace();
  const demo = useMutation(
    trpc.projects.startDemo.mutationOptions({
      onSuccess: ({ review }) => router.push(`/reviews/${review.uid}`),
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  return (
    <Card className="mb-8 flex flex-wrap items-center gap-4 border-brand-500/40 bg-brand-50/50 p-5 dark:bg-brand-700/10">
      <Sparkles className="size-6 text-brand-600" aria-hidden />
      <div className="min-w-0 flex-1">
        <h2 className="font-medium">Start here: review a project</h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {canEdit
            ? "Try Argus on a small demo project with a few deliberate flaws — it runs with the static engine, no API key needed. Or create a project and import your own code."
            : "Nobody has imported a project in this workspace yet. Ask a member to add one."}
        </p>
      </div>
      {canEdit && (
        <div className="flex gap-2">
          <Button busy={demo.isPending} onClick={() => demo.mutate({ workspaceId: workspace.id, engine: "static" })}>
            Review the demo project
          </Button>
          <Link
            href="/projects"
            className="inline-flex items-center rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
          >
            Import your code
          </Link>
        </div>
      )}
    </Card>
  );
}

export default function DashboardPage() {
  const trpc = useTRPC();
  const { user, workspace } = useWorkspace();
  const projects = useQuery(trpc.projects.list.queryOptions({ workspaceId: workspace.id }));
  const prompts = useQuery(trpc.prompts.list.queryOptions({ workspaceId: workspace.id }));
  const members = useQuery(trpc.workspaces.members.queryOptions({ workspaceId: workspace.id }));
  const reviews = useQuery({
    ...trpc.reviews.list.queryOptions({ workspaceId: workspace.id, limit: 8 }),
    refetchInterval: (q) => (q.state.data?.items.some((r) => isActive(r.status)) ? 2000 : false),
  });

  return (
    <>
      <PageHeader title={`Welcome, ${user.name.split(/\s+/)[0]}`} description={workspace.name} />
      {projects.data?.length === 0 && <FirstRun />}
      <div className="grid gap-4 sm:grid-cols-3">
        <Stat
          href="/projects"
          label="Projects"
          value={projects.data?.length}
          icon={<FolderGit2 className="size-5" />}
        />
        <Stat
          href="/prompts"
          label="Review prompts"
          value={prompts.data?.length}
          icon={<MessageSquareText className="size-5" />}
        />
        <Stat
          href="/settings#members"
          label="Members"
          value={members.data?.length}
          icon={<Users className="size-5" />}
        />
      </div>
      <div className="mt-10 grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section>
          <div className="mb-3 flex items-center justify-between">
            <h2 className="text-sm font-semibold uppercase tracking-wide text-zinc-500">Recent reviews</h2>
            <Link href="/reviews" className="text-sm text-brand-600 hover:underline">
              All reviews
            </Link>
          </div>
          {reviews.isPending && <DelayedSkeleton rows={2} />}
          {reviews.data?.items.length === 0 && (
            <p className="text-sm text-zinc-500">No reviews yet. Open a project and press “Start review”.</p>
          )}
          {reviews.data && reviews.data.items.length > 0 && <ReviewRows reviews={reviews.data.items} />}
        </section>
        <section>
          <h2 className="mb-3 text-sm font-semibold uppercase tracking-wide text-zinc-500">Projects</h2>
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
          <ul className="space-y-2" aria-label="Recent projects">
            {projects.data?.slice(0, 8).map((p) => (
              <li key={p.uid} className="flex items-center gap-2">
                <FolderGit2 className="size-4 text-zinc-400" aria-hidden />
                <Link href={`/projects/${p.uid}`} className="truncate text-sm font-medium hover:underline">
                  {p.name}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}
