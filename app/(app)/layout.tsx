"use client";
/**
 * The signed-in part of Argus: checks the session (→ /sign-up on a fresh install, → /sign-in when
 * signed out), picks the workspace and renders the sidebar around the page.
 */
import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { Sidebar } from "@/app/_components/sidebar.tsx";
import { DelayedSkeleton, ErrorNotice } from "@/app/_components/ui.tsx";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { WORKSPACE_KEY, WorkspaceContext, type WorkspaceState } from "@/app/_lib/workspace.tsx";

export default function AppLayout({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const me = useQuery(trpc.account.me.queryOptions());
  const setup = useQuery({ ...trpc.account.setupState.queryOptions(), enabled: me.isError });
  const [selected, setSelected] = useState<string | null>(null);

  useEffect(() => {
    setSelected(localStorage.getItem(WORKSPACE_KEY));
  }, []);

  const unauthenticated = me.isError && errorInfo(me.error).status === 401;
  useEffect(() => {
    if (!unauthenticated || !setup.data) return;
    const next = pathname && pathname !== "/" ? `?next=${encodeURIComponent(pathname)}` : "";
    router.replace(setup.data.needsSetup ? "/sign-up" : `/sign-in${next}`);
  }, [unauthenticated, setup.data, router, pathname]);

  const selectWorkspace = useCallback((id: string) => {
    localStorage.setItem(WORKSPACE_KEY, id);
    setSelected(id);
  }, []);

  const state = useMemo<WorkspaceState | null>(() => {
    if (!me.data || me.data.workspaces.length === 0) return null;
    const workspace = me.data.workspaces.find((w) => w.id === selected) ?? me.data.workspaces[0]!;
    return {
      user: me.data.user,
      workspace,
      workspaces: me.data.workspaces,
      selectWorkspace,
      canEdit: workspace.role !== "viewer",
    };
  }, [me.data, selected, selectWorkspace]);

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
  if (!state) {
    return (
      <main className="mx-auto max-w-3xl p-10">
        <DelayedSkeleton rows={4} />
      </main>
    );
  }
  return (
    <WorkspaceContext.Provider value={state}>
      <div className="flex min-h-screen">
        <Sidebar />
        <main className="min-w-0 flex-1 px-8 py-7">{children}</main>
      </div>
    </WorkspaceContext.Provider>
  );
}
