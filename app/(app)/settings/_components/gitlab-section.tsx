"use client";
/**
 * Settings → Integrations → GitLab: the webhook URL to paste into GitLab, the connected projects and
 * groups with their projects' review settings, and (owners) the form that connects another. Members
 * see it read-only (docs/forges.md "GitLab").
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { FormError } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { CopyButton } from "./copy-button.tsx";
import { GitLabConnectForm } from "./gitlab-connect-form.tsx";
import { GitLabConnectionRow } from "./gitlab-connection-row.tsx";

/** PUBLIC_URL's webhook, or this page's origin when the server has no PUBLIC_URL (the same Argus). */
function webhookUrlOf(fromServer: string | null): string {
  if (fromServer) return fromServer;
  return typeof window === "undefined"
    ? "/api/forges/gitlab/webhook"
    : `${window.location.origin}/api/forges/gitlab/webhook`;
}

/** The URL to paste into GitLab, and how to set the webhook up so both reviews and `@argus` notes arrive. */
export function WebhookUrl({ url }: { url: string }) {
  return (
    <div className="mt-2">
      <p className="flex items-center gap-2 text-sm">
        <span className="shrink-0 text-zinc-500">Webhook URL</span>
        <code className="min-w-0 flex-1 truncate text-xs" data-testid="gitlab-webhook-url">
          {url}
        </code>
        <CopyButton text={url} label="Copy the GitLab webhook URL" />
      </p>
      <p className="text-xs text-zinc-500">
        In GitLab: the project or group → Settings → Webhooks → Add new webhook. This URL, the secret token entered
        here, and under Trigger tick both <em>Merge request events</em> (reviews) and <em>Comments</em> (without it,
        @argus in a merge request note never reaches Argus).
      </p>
    </div>
  );
}

export function GitLabSection({ workspaceId, readOnly }: { workspaceId: string; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const connections = useQuery(trpc.forges.gitlabConnections.queryOptions({ workspaceId }));
  const setup = useQuery(trpc.forges.gitlabSetup.queryOptions({ workspaceId }));
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: trpc.forges.gitlabConnections.queryKey({ workspaceId }) });
  const error = connections.error ?? setup.error;
  return (
    <section aria-labelledby="gitlab-heading">
      <h3 id="gitlab-heading" className="mt-6 text-sm font-medium">
        GitLab
      </h3>
      <p className="mt-1 text-sm text-zinc-500">
        Argus reviews the merge requests of the GitLab projects and groups connected here
        {setup.data ? ` on ${setup.data.gitlabUrl}` : ""}.
      </p>
      {error && <FormError message={errorInfo(error).message} />}
      {setup.data && <WebhookUrl url={webhookUrlOf(setup.data.webhookUrl)} />}
      {connections.data?.length === 0 && (
        <p className="mt-2 text-sm text-zinc-500" data-testid="gitlab-empty">
          {readOnly
            ? "No GitLab project or group is connected yet. A workspace owner connects one here."
            : "No GitLab project or group is connected yet. Create an access token in GitLab (role Developer, scope api), connect its project or group below, then add the webhook above in GitLab."}
        </p>
      )}
      {connections.data?.map((c) => (
        <GitLabConnectionRow
          key={c.namespace}
          workspaceId={workspaceId}
          connection={c}
          readOnly={readOnly}
          refresh={refresh}
        />
      ))}
      {readOnly ? (
        <p className="mt-2 text-xs text-zinc-500">Only workspace owners connect, change or disconnect GitLab.</p>
      ) : (
        setup.data && (
          <GitLabConnectForm workspaceId={workspaceId} gitlabUrl={setup.data.gitlabUrl} onConnected={refresh} />
        )
      )}
    </section>
  );
}
