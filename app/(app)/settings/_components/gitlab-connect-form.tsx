"use client";
/**
 * The owner's form that connects a GitLab project or group (forges.connectGitLab). The server tries the
 * token on the path before storing anything, and says which field is wrong; each message shows under
 * its field and focus moves there. Once saved, the token and secret are cleared from the page: the
 * server sealed them and never returns them.
 */
import { useMutation } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, Field, FormError, Input } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

const FIELDS = ["namespace", "token", "webhookSecret"] as const;
type FieldName = (typeof FIELDS)[number];
const inputId: Record<FieldName, string> = {
  namespace: "gl-namespace",
  token: "gl-token",
  webhookSecret: "gl-webhook-secret",
};

export function GitLabConnectForm({
  workspaceId,
  gitlabUrl,
  onConnected,
}: {
  workspaceId: string;
  /** The GitLab this Argus talks to (GITLAB_URL). */
  gitlabUrl: string;
  onConnected: () => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [namespace, setNamespace] = useState("");
  const [token, setToken] = useState("");
  const [webhookSecret, setWebhookSecret] = useState("");
  const connect = useMutation(
    trpc.forges.connectGitLab.mutationOptions({
      onSuccess: async (row) => {
        setNamespace("");
        setToken("");
        setWebhookSecret("");
        await onConnected();
        toast.success(
          `${row.namespace} connected. Its token and webhook secret are sealed and will not be shown again; now add the webhook in GitLab.`,
        );
      },
    }),
  );
  const info = connect.error ? errorInfo(connect.error) : null;
  const fieldError = (name: FieldName) => info?.fields?.[name]?.[0];
  const firstWrong = FIELDS.find((name) => fieldError(name));
  // A refusal about no field of this form (already connected, not an owner) is said below the form.
  const formMessage = info && !firstWrong ? info.message : null;

  useEffect(() => {
    if (firstWrong) document.getElementById(inputId[firstWrong])?.focus();
  }, [connect.error, firstWrong]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    connect.mutate({ workspaceId, namespace, token, webhookSecret });
  };
  return (
    <form onSubmit={submit} className="mt-4 space-y-3" aria-label="Connect GitLab">
      <Field
        label="GitLab URL"
        htmlFor="gl-url"
        hint="The GitLab this Argus talks to. A self-managed GitLab is set in the server's environment (GITLAB_URL)."
      >
        <Input id="gl-url" readOnly value={gitlabUrl} />
      </Field>
      <Field
        label="Project or group path"
        htmlFor={inputId.namespace}
        error={fieldError("namespace")}
        hint="The full path as in its URL: acme/shop for a project, acme for a group (every project under it)."
      >
        <Input
          id={inputId.namespace}
          required
          placeholder="acme/shop"
          autoComplete="off"
          spellCheck={false}
          invalid={Boolean(fieldError("namespace"))}
          value={namespace}
          onChange={(e) => setNamespace(e.target.value)}
        />
      </Field>
      <Field
        label="Access token"
        htmlFor={inputId.token}
        error={fieldError("token")}
        hint="GitLab → the project or group → Settings → Access tokens: role Developer, scope api."
      >
        <Input
          id={inputId.token}
          type="password"
          required
          placeholder="glpat-…"
          autoComplete="off"
          invalid={Boolean(fieldError("token"))}
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
      </Field>
      <Field
        label="Secret token"
        htmlFor={inputId.webhookSecret}
        error={fieldError("webhookSecret")}
        hint="A webhook secret of your choosing, at least 16 characters (openssl rand -hex 32): the same goes in the GitLab webhook's Secret token."
      >
        <Input
          id={inputId.webhookSecret}
          type="password"
          required
          autoComplete="off"
          invalid={Boolean(fieldError("webhookSecret"))}
          value={webhookSecret}
          onChange={(e) => setWebhookSecret(e.target.value)}
        />
      </Field>
      <FormError message={formMessage} />
      <Button type="submit" busy={connect.isPending}>
        Connect GitLab
      </Button>
    </form>
  );
}
