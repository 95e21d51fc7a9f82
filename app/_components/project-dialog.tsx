"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { Button, Field, Input, Modal } from "./ui.tsx";

/** Create a project (no `project`) or rename one. */
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
  const create = useMutation(trpc.projects.create.mutationOptions({ onSuccess: () => done("Project created") }));
  const rename = useMutation(trpc.projects.rename.mutationOptions({ onSuccess: () => done("Project renamed") }));
  const mutation = project ? rename : create;
  const err = mutation.error ? errorInfo(mutation.error) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (project) rename.mutate({ uid: project.uid, name });
    else create.mutate({ workspaceId: workspace.id, uid: crypto.randomUUID(), name });
  }

  return (
    <Modal open={open} onClose={onClose} title={project ? "Rename project" : "New project"}>
      <form onSubmit={submit} className="space-y-4">
        <Field
          label="Name"
          htmlFor="project-name"
          error={err?.fields?.name?.[0] ?? (err && !err.fields ? err.message : undefined)}
        >
          <Input
            id="project-name"
            autoFocus
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. payments-service"
            invalid={!!err}
          />
        </Field>
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" busy={mutation.isPending}>
            {project ? "Save" : "Create project"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
