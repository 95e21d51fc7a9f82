"use client";
/**
 * Settings → Members (`/settings#members`): who is in the workspace and with which role. Owners change
 * roles and remove people (after a confirmation); everyone can leave (the last owner is told why not).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { LogOut } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { Button, Card, ConfirmDialog, DelayedSkeleton, ErrorNotice } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { MemberRow, type Member } from "./member-row.tsx";

const revokedNote = (n: number) =>
  n > 0 ? ` ${n} open invite link${n === 1 ? " was" : "s were"} revoked, since owners could see them.` : "";

export function MembersCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { user, workspace } = useWorkspace();
  const workspaceId = workspace.id;
  const isOwner = workspace.role === "owner";
  const members = useQuery(trpc.workspaces.members.queryOptions({ workspaceId }));
  const [removing, setRemoving] = useState<Member | null>(null);
  const [leaving, setLeaving] = useState(false);

  // The section is linked to (#members) but only exists once the page has loaded: scroll to it then.
  const loaded = members.isSuccess;
  useEffect(() => {
    if (loaded && window.location.hash === "#members") {
      document.getElementById("members")?.scrollIntoView({ block: "start" });
    }
  }, [loaded]);

  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.workspaces.members.queryKey({ workspaceId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.account.invites.queryKey({ workspaceId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.account.me.queryKey() }),
    ]);
  };
  const onError = (err: unknown) => toast.error(errorInfo(err).message);
  const changeRole = useMutation(
    trpc.workspaces.changeRole.mutationOptions({
      onSuccess: async (r, input) => {
        await refresh();
        const who = members.data?.find((m) => m.userId === input.userId)?.name ?? "They";
        toast.success(
          `${who} is now ${r.role === "viewer" ? "a viewer" : `a ${r.role}`}.${revokedNote(r.revokedInvites)}`,
        );
      },
      onError,
    }),
  );
  const remove = useMutation(
    trpc.workspaces.removeMember.mutationOptions({
      onSuccess: async (r, input) => {
        const who = members.data?.find((m) => m.userId === input.userId)?.name ?? "The member";
        await refresh();
        toast.success(`${who} was removed.${revokedNote(r.revokedInvites)}`);
        setRemoving(null);
      },
      onError,
    }),
  );
  const leave = useMutation(
    trpc.workspaces.leave.mutationOptions({
      onSuccess: async () => {
        setLeaving(false);
        toast.success(`You left ${workspace.name}.`);
        await queryClient.invalidateQueries({ queryKey: trpc.account.me.queryKey() });
        router.replace("/");
      },
      onError: (err) => {
        setLeaving(false);
        onError(err);
      },
    }),
  );

  const onlyYou = members.data?.length === 1;

  return (
    <Card className="scroll-mt-6 p-5">
      <section id="members" aria-labelledby="members-heading">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div>
            <h2 id="members-heading" className="font-medium">
              Members
            </h2>
            <p className="mt-1 text-sm text-zinc-500">
              Owners manage members and invites; members change things; viewers only look.
            </p>
          </div>
          <Button variant="secondary" onClick={() => setLeaving(true)}>
            <LogOut className="size-4" aria-hidden /> Leave workspace
          </Button>
        </div>
        {members.isPending && <DelayedSkeleton rows={2} />}
        {members.isError && (
          <div className="mt-3">
            <ErrorNotice message={errorInfo(members.error).message} onRetry={() => members.refetch()} />
          </div>
        )}
        {members.data && (
          <ul className="mt-3 divide-y divide-zinc-200 text-sm dark:divide-zinc-800" aria-label="Members">
            {members.data.map((m) => (
              <MemberRow
                key={m.userId}
                member={m}
                self={m.userId === user.id}
                isOwner={isOwner}
                changingRole={changeRole.isPending}
                onRole={(role) => changeRole.mutate({ workspaceId, userId: m.userId, role })}
                onRemove={() => setRemoving(m)}
              />
            ))}
          </ul>
        )}
        {onlyYou && (
          <p className="mt-3 rounded-md border border-dashed border-zinc-300 px-3 py-4 text-center text-sm text-zinc-500 dark:border-zinc-700">
            {isOwner
              ? "Only you so far. Create an invite link below and send it to a teammate."
              : "Only you so far. An owner can invite others."}
          </p>
        )}
      </section>
      <ConfirmDialog
        open={!!removing}
        onClose={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate({ workspaceId, userId: removing.userId })}
        busy={remove.isPending}
        title={`Remove ${removing?.name ?? "member"}?`}
        body={
          <>
            {removing?.name} ({removing?.email}) loses access to “{workspace.name}” at once, including pages they have
            open. Their account stays; invite them again to bring them back.
          </>
        }
        confirmLabel="Remove member"
      />
      <ConfirmDialog
        open={leaving}
        onClose={() => setLeaving(false)}
        onConfirm={() => leave.mutate({ workspaceId })}
        busy={leave.isPending}
        title={`Leave ${workspace.name}?`}
        body={<>You lose access to its projects, reviews and prompts. To come back you need a new invite link.</>}
        confirmLabel="Leave workspace"
      />
    </Card>
  );
}
