"use client";
/**
 * Settings → Integrations: the GitHub App (the server's, or this workspace's own — its key and webhook
 * secret sealed on the server, never shown again), the App installations connected to the workspace,
 * each repository's review mode and failing severity (owners), and the GitLab connections
 * (gitlab-section.tsx; members see those read-only). docs/forges.md.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Badge, Button, Card, DelayedSkeleton, Field, FormError, Input, TextArea } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import type { Role } from "@/app/_lib/workspace.tsx";
import { RepoSettings } from "./forge-repo-settings.tsx";
import { GitLabSection } from "./gitlab-section.tsx";

function useRefresh(workspaceId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.forges.installations.queryKey({ workspaceId }) });
}

/** This workspace's own GitHub App: App ID, private key and webhook secret (sealed once saved). */
function AppForm({ workspaceId, replacing }: { workspaceId: string; replacing: boolean }) {
  const trpc = useTRPC();
  const refresh = useRefresh(workspaceId);
  const [appId, setAppId] = useState("");
  const [privateKey, setPrivateKey] = useState("");
  const [webhookSecret, setWebhookSecret] = useState("");
  const save = useMutation(
    trpc.forges.saveApp.mutationOptions({
      onSuccess: async () => {
        setPrivateKey("");
        setWebhookSecret("");
        await refresh();
        toast.success("GitHub App saved. Its key and webhook secret are sealed and will not be shown again.");
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ workspaceId, appId: Number(appId), privateKey, webhookSecret });
  };
  return (
    <form onSubmit={submit} className="mt-4 space-y-3" aria-label="GitHub App">
      <Field label="App ID" htmlFor="gh-app-id" hint="GitHub → Settings → Developer settings → GitHub Apps → your App.">
        <Input id="gh-app-id" inputMode="numeric" required value={appId} onChange={(e) => setAppId(e.target.value)} />
      </Field>
      <Field label="Private key" htmlFor="gh-app-key" hint="The .pem file GitHub generated, pasted whole.">
        <TextArea
          id="gh-app-key"
          rows={4}
          required
          placeholder="-----BEGIN RSA PRIVATE KEY-----"
          value={privateKey}
          onChange={(e) => setPrivateKey(e.target.value)}
        />
      </Field>
      <Field label="Webhook secret" htmlFor="gh-app-secret" hint="At least 16 characters, the same as the App's.">
        <Input
          id="gh-app-secret"
          type="password"
          required
          autoComplete="off"
          value={webhookSecret}
          onChange={(e) => setWebhookSecret(e.target.value)}
        />
      </Field>
      <FormError message={save.error ? errorInfo(save.error).message : null} />
      <Button type="submit" busy={save.isPending}>
        {replacing ? "Replace the App" : "Save the App"}
      </Button>
    </form>
  );
}

function ConnectInstallation({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const refresh = useRefresh(workspaceId);
  const [installationId, setInstallationId] = useState("");
  const connect = useMutation(
    trpc.forges.connect.mutationOptions({
      onSuccess: async () => {
        setInstallationId("");
        await refresh();
        toast.success("Installation connected: its pull requests are reviewed here.");
      },
    }),
  );
  return (
    <form
      className="mt-3 flex flex-wrap items-end gap-2"
      aria-label="Connect an installation"
      onSubmit={(e) => {
        e.preventDefault();
        connect.mutate({ workspaceId, forge: "github", installationId: Number(installationId) });
      }}
    >
      <Field label="Installation ID" htmlFor="gh-installation" hint="The last part of …/settings/installations/<id>.">
        <Input
          id="gh-installation"
          inputMode="numeric"
          required
          value={installationId}
          onChange={(e) => setInstallationId(e.target.value)}
        />
      </Field>
      <Button type="submit" busy={connect.isPending}>
        Connect
      </Button>
      <FormError className="w-full" message={connect.error ? errorInfo(connect.error).message : null} />
    </form>
  );
}

/** The GitHub App and its installations (owners only: the server refuses the rest). */
function GitHubSection({ workspaceId }: { workspaceId: string }) {
  const trpc = useTRPC();
  const refresh = useRefresh(workspaceId);
  const data = useQuery(trpc.forges.installations.queryOptions({ workspaceId }));
  const removeApp = useMutation(trpc.forges.removeApp.mutationOptions({ onSuccess: refresh }));
  const disconnect = useMutation(
    trpc.forges.disconnect.mutationOptions({
      onSuccess: refresh,
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const d = data.data;
  return (
    <>
      {data.isPending && <DelayedSkeleton rows={2} />}
      {data.error && <FormError message={errorInfo(data.error).message} />}
      {d && (
        <>
          <h3 className="mt-4 text-sm font-medium">GitHub App</h3>
          {d.app.source === "environment" && (
            <p className="mt-1 text-sm">
              The server&apos;s App (ID {d.app.appId}), set in its environment, serves every workspace.
            </p>
          )}
          {d.app.source === "workspace" && (
            <p className="mt-1 flex items-center gap-2 text-sm" data-testid="workspace-app">
              <Badge tone="green">connected</Badge> This workspace&apos;s App (ID {d.app.appId}); its key is sealed.
              <Button variant="ghost" busy={removeApp.isPending} onClick={() => removeApp.mutate({ workspaceId })}>
                Remove
              </Button>
            </p>
          )}
          {d.app.source !== "environment" && <AppForm workspaceId={workspaceId} replacing={d.app.source !== null} />}

          <h3 className="mt-6 text-sm font-medium">Installations</h3>
          {d.installations.length === 0 && <p className="mt-1 text-sm text-zinc-500">No installation connected yet.</p>}
          {d.installations.map((i) => (
            <div key={i.installationId} className="mt-2" data-testid="forge-installation">
              <p className="flex items-center gap-2 text-sm">
                <Badge tone="brand">GitHub</Badge> Installation {i.installationId}
                {i.account ? ` · ${i.account}` : ""}
                <Button
                  variant="ghost"
                  onClick={() => disconnect.mutate({ workspaceId, forge: "github", installationId: i.installationId })}
                >
                  Disconnect
                </Button>
              </p>
              {i.repos.length === 0 ? (
                <p className="text-xs text-zinc-500">Repositories appear with their first pull request.</p>
              ) : (
                <ul className="divide-y divide-zinc-200 dark:divide-zinc-800" aria-label="Repositories">
                  {i.repos.map((r) => (
                    <RepoSettings key={r.projectUid} repo={r} noun="pull request" onSaved={refresh} />
                  ))}
                </ul>
              )}
            </div>
          ))}
          <ConnectInstallation workspaceId={workspaceId} />
        </>
      )}
    </>
  );
}

/** Owners see and change everything; members see the GitLab connections (the GitHub App's are owners'). */
export function IntegrationsCard({ workspaceId, role }: { workspaceId: string; role: Role }) {
  return (
    <Card className="p-5">
      <h2 className="font-medium" id="integrations">
        Integrations
      </h2>
      <p className="mt-1 text-sm text-zinc-500">
        Argus reviews the pull requests of the repositories a GitHub App is installed on, and the merge requests of the
        GitLab projects connected here; each review is a live room here, and what the room decides lands on the PR.
      </p>
      {role === "owner" && <GitHubSection workspaceId={workspaceId} />}
      <GitLabSection workspaceId={workspaceId} readOnly={role !== "owner"} />
    </Card>
  );
}
