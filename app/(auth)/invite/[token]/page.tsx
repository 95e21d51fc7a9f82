"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams, useRouter } from "next/navigation";
import { SignUpForm } from "@/app/_components/sign-up-form.tsx";
import { Button, DelayedSkeleton } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";

const roleText = { owner: "an owner", member: "a member", viewer: "a read-only viewer" } as const;
const roleMeans = {
  owner: "Owners manage members and invites, and can change everything.",
  member: "Members create projects, run reviews and edit prompts.",
  viewer: "Viewers see everything in the workspace but change nothing.",
} as const;

export default function InvitePage() {
  const { token } = useParams<{ token: string }>();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const info = useQuery(trpc.account.inviteInfo.queryOptions({ token }));
  const setup = useQuery(trpc.account.setupState.queryOptions());
  const accept = useMutation(
    trpc.account.acceptInvite.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.replace("/");
      },
    }),
  );

  if (info.isError) {
    return (
      <div className="space-y-3 text-sm">
        <h1 className="text-lg font-semibold">Invite not found</h1>
        <p role="alert" className="text-zinc-600 dark:text-zinc-400">
          {errorInfo(info.error).message}
        </p>
      </div>
    );
  }
  if (!info.data || !setup.data) return <DelayedSkeleton rows={3} />;
  const { workspaceName, role, status } = info.data;
  if (status !== "valid") {
    return (
      <div className="space-y-3 text-sm">
        <h1 className="text-lg font-semibold">This invite can't be used</h1>
        <p role="alert" className="text-zinc-600 dark:text-zinc-400">
          The link has {status === "used" ? "already been used" : status === "expired" ? "expired" : "been revoked"}.
          Ask the owner of {workspaceName} for a new one.
        </p>
      </div>
    );
  }
  return (
    <>
      <h1 className="text-lg font-semibold">
        Join {workspaceName} as {roleText[role]}
      </h1>
      <p className="mb-5 mt-1 text-sm text-zinc-600 dark:text-zinc-400">{roleMeans[role]}</p>
      {setup.data.signedIn ? (
        <div className="space-y-3">
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            You are signed in: joining adds {workspaceName} to the workspaces you can switch between.
          </p>
          <Button className="w-full" busy={accept.isPending} onClick={() => accept.mutate({ token })}>
            Join {workspaceName}
          </Button>
          {accept.error && (
            <p role="alert" className="text-sm text-red-600">
              {errorInfo(accept.error).message}
            </p>
          )}
        </div>
      ) : (
        <>
          <SignUpForm inviteToken={token} submitLabel="Create account and join" />
          <p className="mt-4 text-xs text-zinc-500">
            Already have an account?{" "}
            <Link
              href={`/sign-in?next=${encodeURIComponent(`/invite/${token}`)}`}
              className="text-brand-600 hover:underline"
            >
              Sign in first
            </Link>
            , then open this link again.
          </p>
        </>
      )}
    </>
  );
}
