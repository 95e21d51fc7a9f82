"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FolderGit2, Pencil, Plus, Trash2 } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { ProjectDialog } from "@/app/_components/project-dialog.tsx";
import { Badge, Button, ConfirmDialog, EmptyState, PageHeader } from "@/app/_components/ui.tsx";
import { QueryList } from "@/app/_components/query-states.tsx";
import { formatDate } from "@/app/_components/review/format.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";

type ProjectRow = { uid: string; name: string; status: string; sourceKind: string; updatedAt: string | Date };

export default function ProjectsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { workspace, canEdit } = useWorkspace();
  const projects = useQuery(trpc.projects.list.queryOptions({ workspaceId: workspace.id }));
  // Dates in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<ProjectRow | null>(null);
  const [deleting, setDeleting] = useState<ProjectRow | null>(null);
  const remove = useMutation(
    trpc.projects.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
        toast.success("Project deleted");
        setDeleting(null);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  const newButton = canEdit && (
    <Button onClick={() => setCreating(true)}>
      <Plus className="size-4" aria-hidden /> New project
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Projects"
        description="Codebases Argus can review and answer questions about."
        actions={newButton}
      />
      <QueryList
        query={projects}
        label="Projects"
        empty={
          <EmptyState icon={<FolderGit2 className="size-8" />} title="No projects yet" action={newButton}>
            {canEdit
              ? "Create a project, then import its code to start a review."
              : "Nobody has created a project in this workspace yet."}
          </EmptyState>
        }
      >
        {(p) => (
          <li key={p.uid} className="flex items-center gap-3 px-4 py-3">
            <FolderGit2 className="size-4 text-zinc-400" aria-hidden />
            <Link href={`/projects/${p.uid}`} className="min-w-0 flex-1 truncate font-medium hover:underline">
              {p.name}
            </Link>
            <Badge>{p.status}</Badge>
            <span className="hidden text-xs text-zinc-500 sm:inline">updated {formatDate(p.updatedAt, local)}</span>
            {canEdit && (
              <>
                <Button variant="ghost" aria-label={`Rename ${p.name}`} onClick={() => setRenaming(p)}>
                  <Pencil className="size-4" aria-hidden />
                </Button>
                <Button variant="ghost" aria-label={`Delete ${p.name}`} onClick={() => setDeleting(p)}>
                  <Trash2 className="size-4" aria-hidden />
                </Button>
              </>
            )}
          </li>
        )}
      </QueryList>
      <ProjectDialog open={creating} onClose={() => setCreating(false)} />
      <ProjectDialog open={!!renaming} onClose={() => setRenaming(null)} project={renaming ?? undefined} />
      <ConfirmDialog
        open={!!deleting}
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ uid: deleting.uid })}
        busy={remove.isPending}
        title="Delete project?"
        body={<>“{deleting?.name}” and everything recorded for it will be deleted. This cannot be undone.</>}
        confirmLabel="Delete project"
      />
    </>
  );
}
