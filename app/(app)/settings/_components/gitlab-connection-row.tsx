"use client";
/**
 * One connected GitLab project or group: its path, that its token is saved (masked: the server never
 * returns it), its projects' review settings, and — for owners — Disconnect, after a confirmation.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { Badge, Button, ConfirmDialog } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { RepoSettings, type ForgeRepo } from "./forge-repo-settings.tsx";

export interface GitLabConnection {
  namespace: string;
  kind: string | null;
  repos: ForgeRepo[];
}

export function GitLabConnectionRow({
  workspaceId,
  connection: c,
  readOnly,
  refresh,
}: {
  workspaceId: string;
  connection: GitLabConnection;
  readOnly: boolean;
  refresh: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  const disconnect = useMutation(
    trpc.forges.disconnectGitLab.mutationOptions({
      onSuccess: async () => {
        setConfirming(false);
        await refresh();
        toast.success(`${c.namespace} disconnected. Remove its webhook in GitLab too.`);
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  return (
    <div className="mt-2" data-testid="gitlab-connection">
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <Badge tone="brand">GitLab</Badge> <code>{c.namespace}</code>
        {c.kind ? ` · ${c.kind}` : ""}
        <Badge tone="green">token saved</Badge>
        <span className="font-mono text-xs text-zinc-500" aria-hidden>
          glpat-••••••••
        </span>
        {!readOnly && (
          <Button variant="ghost" onClick={() => setConfirming(true)}>
            Disconnect
          </Button>
        )}
      </p>
      {c.repos.length === 0 ? (
        <p className="text-xs text-zinc-500">Projects appear with their first merge request.</p>
      ) : (
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" aria-label={`Projects of ${c.namespace}`}>
          {c.repos.map((r) => (
            <RepoSettings key={r.projectUid} repo={r} noun="merge request" readOnly={readOnly} onSaved={refresh} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={() => disconnect.mutate({ workspaceId, namespace: c.namespace })}
        title={`Disconnect ${c.namespace}?`}
        body="Argus stops reviewing its merge requests and deletes the saved access token and webhook secret. Reviews already made stay. Remove the webhook in GitLab as well."
        confirmLabel="Disconnect"
        busy={disconnect.isPending}
      />
    </div>
  );
}
