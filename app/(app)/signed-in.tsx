"use client";
/**
 * The signed-in part of Argus: checks the session (→ /sign-up on a fresh install, → /sign-in when
 * signed out), shows the user's current workspace (kept by the server) and renders the sidebar around
 * the page (a drawer on phones: app-shell.tsx). A `?workspace=<id>` link switches to that workspace first.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useMemo, type ReactNode } from "react";
import { toast } from "sonner";
import { AppShell } from "@/app/_components/app-shell.tsx";
import { ShellFrame } from "@/app/_components/shell-frame.tsx";
import { ErrorNotice } from "@/app/_components/ui.tsx";
import { currentWorkspace } from "@/app/_lib/current-workspace.ts";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import {
  WORKSPACE_PARAM,
  WorkspaceContext,
  useWorkspace,
  withoutParam,
  type WorkspaceState,
} from "@/app/_lib/workspace.tsx";

/** Acts on `?workspace=<id>`: switches to it (if the user is in it), then drops the parameter. */
function WorkspaceFromLink() {
  const params = useSearchParams();
  const pathname = usePathname();
  const router = useRouter();
  const { workspace, workspaces, selectWorkspace } = useWorkspace();
  const wanted = params.get(WORKSPACE_PARAM);
  useEffect(() => {
    if (!wanted) return;
    if (!workspaces.some((w) => w.id === wanted)) {
      toast.error("That link is for a workspace you are not a member of. Ask its owner for an invite link.");
    } else if (wanted !== workspace.id) {
      selectWorkspace(wanted);
    }
    router.replace(withoutParam(pathname, params, WORKSPACE_PARAM, window.location.hash));
  }, [wanted, workspace.id, workspaces, selectWorkspace, router, pathname, params]);
  return null;
}

export function SignedIn({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.account.me.queryOptions());
  const setup = useQuery({ ...trpc.account.setupState.queryOptions(), enabled: me.isError });

  const unauthenticated = me.isError && errorInfo(me.error).status === 401;
  useEffect(() => {
    if (!unauthenticated || !setup.data) return;
    const next = pathname && pathname !== "/" ? `?next=${encodeURIComponent(pathname)}` : "";
    router.replace(setup.data.needsSetup ? "/sign-up" : `/sign-in${next}`);
  }, [unauthenticated, setup.data, router, pathname]);

  const meKey = trpc.account.me.queryKey();
  // Shown at once (the cached `me` is updated first), stored by the server, then `me` is fetched again.
  const switchTo = useMutation(
    trpc.workspaces.switch.mutationOptions({
      onMutate: ({ workspaceId }) =>
        queryClient.setQueryData(meKey, (old) => (old ? { ...old, currentWorkspaceId: workspaceId } : old)),
      onError: (err) => toast.error(errorInfo(err).message),
      onSettled: () => queryClient.invalidateQueries({ queryKey: meKey }),
    }),
  );
  const { mutate: switchMutate } = switchTo;
  const selectWorkspace = useCallback((id: string) => switchMutate({ workspaceId: id }), [switchMutate]);

  const state = useMemo<WorkspaceState | null>(() => {
    const workspace = me.data && currentWorkspace(me.data);
    if (!me.data || !workspace) return null;
    const { workspaces } = me.data;
    return {
      user: me.data.user,
      workspace,
      workspaces,
      selectWorkspace,
      canEdit: workspace.role !== "viewer",
      canCreateWorkspace: workspaces.some((w) => w.role !== "viewer"),
    };
  }, [me.data, selectWorkspace]);

  if (me.isError && !unauthenticated) {
    return (
      <main className="mx-auto max-w-lg p-10">
        <ErrorNotice message={errorInfo(me.error).message} onRetry={() => me.refetch()} />
      </main>
    );
  }
  if (me.data && !state) {
    return (
      <main className="mx-auto max-w-lg p-10">
        <ErrorNotice message="Your account is not a member of any workspace. Ask a workspace owner for an invite link and open it while signed in." />
      </main>
    );
  }
  // The frame (navigation, a page skeleton) while the session is read: what the server renders when
  // it could not read the session (signed out, an error).
  if (!state) return <ShellFrame />;
  return (
    <WorkspaceContext.Provider value={state}>
      <Suspense fallback={null}>
        <WorkspaceFromLink />
      </Suspense>
      <AppShell>{children}</AppShell>
    </WorkspaceContext.Provider>
  );
}
