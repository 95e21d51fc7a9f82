"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link2 } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { ProvidersSettings } from "@/app/_components/providers-settings.tsx";
import { ThemeToggle } from "@/app/_components/theme-toggle.tsx";
import { MembersCard } from "./_components/members-card.tsx";
import { IntegrationsCard } from "./_components/integrations-card.tsx";
import { CopyButton } from "./_components/copy-button.tsx";
import { Badge, Button, Card, DelayedSkeleton, PageHeader } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { ChatBudgetSettings } from "@/app/_components/ask/chat-budget-settings.tsx";

const roleTone = { owner: "brand", member: "green", viewer: "amber" } as const;

function inviteUrl(token: string) {
  return `${window.location.origin}/invite/${token}`;
}

function Invites({ workspaceId, workspaceName }: { workspaceId: string; workspaceName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.account.invites.queryOptions({ workspaceId }));
  const [role, setRole] = useState<"member" | "viewer">("member");
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.account.invites.queryKey({ workspaceId }) });
  const create = useMutation(
    trpc.account.createInvite.mutationOptions({
      onSuccess: async () => {
        await refresh();
        toast.success("Invite link created. Copy it and send it to your teammate.");
      },
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );
  const revoke = useMutation(
    trpc.account.revokeInvite.mutationOptions({
      onSuccess: refresh,
      onError: (err) => toast.error(errorInfo(err).message),
    }),
  );

  return (
    <Card className="p-5">
      <h2 className="font-medium">Invite links</h2>
      <p className="mt-1 text-sm text-zinc-500">
        Each link adds one person to {workspaceName}, whether they are new to Argus or already have an account. Members
        can change things; viewers can only look.
      </p>
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <label htmlFor="invite-role" className="text-sm">
          Role
        </label>
        <select
          id="invite-role"
          value={role}
          onChange={(e) => setRole(e.target.value as "member" | "viewer")}
          className="rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
        >
          <option value="member">Member</option>
          <option value="viewer">Viewer (read-only)</option>
        </select>
        <Button onClick={() => create.mutate({ workspaceId, role, expiresInDays: 7 })} busy={create.isPending}>
          <Link2 className="size-4" aria-hidden /> Create invite link
        </Button>
      </div>
      {invites.isPending && <DelayedSkeleton rows={1} />}
      {invites.data && invites.data.length > 0 && (
        <ul className="mt-4 divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Invite links">
          {invites.data.map((i) => (
            <li key={i.id} className="flex items-center gap-2 py-2">
              <Badge tone={roleTone[i.role]}>{i.role}</Badge>
              <code className="min-w-0 flex-1 truncate text-xs" data-testid="invite-url">
                {inviteUrl(i.token)}
              </code>
              <Badge tone={i.status === "valid" ? "green" : "zinc"}>{i.status}</Badge>
              {i.status === "valid" && (
                <>
                  <CopyButton text={inviteUrl(i.token)} label="Copy invite link" />
                  <Button variant="ghost" onClick={() => revoke.mutate({ id: i.id })}>
                    Revoke
                  </Button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

export default function SettingsPage() {
  const { workspace } = useWorkspace();
  return (
    <>
      <PageHeader title="Settings" description={workspace.name} />
      <div className="max-w-3xl space-y-6">
        <Card className="p-5">
          <h2 className="font-medium">Appearance</h2>
          <div className="mt-3 w-40">
            <ThemeToggle />
          </div>
        </Card>
        <MembersCard />
        {workspace.role === "owner" && <Invites workspaceId={workspace.id} workspaceName={workspace.name} />}
        <ProvidersSettings />
        <ChatBudgetSettings />
        {workspace.role !== "viewer" && <IntegrationsCard workspaceId={workspace.id} role={workspace.role} />}
      </div>
    </>
  );
}
