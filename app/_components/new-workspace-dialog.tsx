"use client";
/**
 * "New workspace": open on any page with `?new-workspace` (so the dialog can be linked to). The new
 * workspace becomes the current one and the app goes to its dashboard.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { NEW_WORKSPACE_PARAM, useWorkspace, withoutParam } from "@/app/_lib/workspace.tsx";
import { Button, Field, Input, Modal } from "./ui.tsx";

export function NewWorkspaceDialog() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { canCreateWorkspace } = useWorkspace();
  const open = params.has(NEW_WORKSPACE_PARAM);
  const [name, setName] = useState("");
  const close = () => router.replace(withoutParam(pathname, params, NEW_WORKSPACE_PARAM));
  const create = useMutation(
    trpc.workspaces.create.mutationOptions({
      onSuccess: async (ws) => {
        await queryClient.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
        toast.success(`Created “${ws.name}”. Invite your teammates from Settings → Members.`);
        router.push("/");
      },
    }),
  );
  const { reset } = create;
  useEffect(() => {
    if (!open) return;
    setName("");
    reset();
  }, [open, reset]);
  const err = create.error ? errorInfo(create.error) : null;

  function submit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ name });
  }

  return (
    <Modal open={open} onClose={close} title="New workspace">
      {canCreateWorkspace ? (
        <form onSubmit={submit} className="space-y-4">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            A workspace has its own projects, prompts, reviews and members. You will be its owner.
          </p>
          <Field
            label="Name"
            htmlFor="workspace-name"
            error={err?.fields?.name?.[0] ?? (err && !err.fields ? err.message : undefined)}
          >
            <Input
              id="workspace-name"
              autoFocus
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. Platform team"
              invalid={!!err}
              maxLength={100}
            />
          </Field>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" busy={create.isPending}>
              Create workspace
            </Button>
          </div>
        </form>
      ) : (
        <>
          <p role="alert" className="text-sm text-zinc-600 dark:text-zinc-400">
            Read-only viewers cannot create workspaces. Ask an owner of your workspace to make you a member.
          </p>
          <div className="mt-6 flex justify-end">
            <Button variant="secondary" onClick={close}>
              Close
            </Button>
          </div>
        </>
      )}
    </Modal>
  );
}
