"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { NameDialog } from "./name-dialog.tsx";

/** Create a project (no `project`; it then opens on its page) or rename one. */
export function ProjectDialog({
  open,
  onClose,
  project,
}: {
  open: boolean;
  onClose: () => void;
  project?: { uid: string; name: string };
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { workspace } = useWorkspace();
  const [name, setName] = useState(project?.name ?? "");
  useEffect(() => {
    if (open) setName(project?.name ?? "");
  }, [open, project?.name]);

  const done = async (message: string) => {
    await queryClient.invalidateQueries({ queryKey: trpc.projects.pathKey() });
    toast.success(message);
    onClose();
  };
  // A new project opens at once, its import at the top (the project page leads with it while empty).
  const create = useMutation(
    trpc.projects.create.mutationOptions({
      onSuccess: async (p) => {
        await done("Project created");
        router.push(`/projects/${p.uid}`);
      },
    }),
  );
  const rename = useMutation(trpc.projects.rename.mutationOptions({ onSuccess: () => done("Project renamed") }));
  const mutation = project ? rename : create;
  const err = mutation.error ? errorInfo(mutation.error) : null;

  return (
    <NameDialog
      open={open}
      onClose={onClose}
      title={project ? "Rename project" : "New project"}
      submitLabel={project ? "Save" : "Create project"}
      busy={mutation.isPending}
      error={err}
      onSubmit={() =>
        project
          ? rename.mutate({ uid: project.uid, name })
          : create.mutate({ workspaceId: workspace.id, uid: crypto.randomUUID(), name })
      }
      name={{ id: "project-name", value: name, onChange: setName, placeholder: "e.g. payments-service" }}
    />
  );
}
