"use client";
import { LogOut, X } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { type Ref, Suspense } from "react";
import { authClient } from "@/app/_lib/auth-client.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { UnreadBadge } from "./inbox/unread-badge.tsx";
import { Logo } from "./logo.tsx";
import { MainNav } from "./main-nav.tsx";
import { NewWorkspaceDialog } from "./new-workspace-dialog.tsx";
import { ThemeToggle } from "./theme-toggle.tsx";
import { cx } from "./ui.tsx";
import { WorkspaceSwitcher } from "./workspace-switcher.tsx";

/**
 * The app's navigation. Beside the page from the md breakpoint up; below it, a drawer that the app
 * shell (app-shell.tsx) opens from its menu button: `drawerOpen` slides it in as a modal panel.
 */
export function Sidebar({
  ref,
  id,
  drawerOpen = false,
  onClose,
}: {
  ref?: Ref<HTMLElement>;
  id?: string;
  drawerOpen?: boolean;
  onClose?: () => void;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const { user } = useWorkspace();

  async function signOut() {
    await authClient.signOut();
    queryClient.clear();
    router.replace("/sign-in");
  }

  return (
    <aside
      ref={ref}
      id={id}
      {...(drawerOpen ? { role: "dialog", "aria-modal": true, "aria-label": "Menu" } : {})}
      className={cx(
        "flex w-60 shrink-0 flex-col border-r border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-900/50",
        // Under md: a drawer over the page, hidden (and out of the tab order) until opened.
        "max-md:fixed max-md:inset-y-0 max-md:left-0 max-md:z-40 max-md:w-72 max-md:max-w-[85vw] max-md:overflow-y-auto max-md:shadow-xl max-md:duration-200 max-md:dark:bg-zinc-900",
        // Opening shows it at once (so focus can move in); closing hides it after it slid out.
        drawerOpen
          ? "max-md:transition-transform"
          : "max-md:invisible max-md:-translate-x-full max-md:transition-[transform,visibility]",
      )}
    >
      <div className="flex items-center justify-between px-4 py-4">
        <Link href="/" className="rounded">
          <Logo />
        </Link>
        {onClose && (
          <button
            type="button"
            onClick={onClose}
            aria-label="Close menu"
            className="rounded p-1.5 text-zinc-500 hover:bg-zinc-200 md:hidden dark:hover:bg-zinc-800"
          >
            <X className="size-4" aria-hidden />
          </button>
        )}
      </div>
      <div className="px-3 pb-3">
        <WorkspaceSwitcher />
        <Suspense fallback={null}>
          <NewWorkspaceDialog />
        </Suspense>
      </div>
      <MainNav extra={(href) => href === "/inbox" && <UnreadBadge />} />
      <div className="space-y-3 border-t border-zinc-200 p-3 dark:border-zinc-800">
        <ThemeToggle />
        <div className="flex items-center justify-between gap-2">
          <div className="min-w-0">
            <p className="truncate text-sm font-medium">{user.name}</p>
            <p className="truncate text-xs text-zinc-500">{user.email}</p>
          </div>
          <button
            type="button"
            onClick={signOut}
            title="Sign out"
            aria-label="Sign out"
            className="rounded p-1.5 text-zinc-500 hover:bg-zinc-200 dark:hover:bg-zinc-800"
          >
            <LogOut className="size-4" aria-hidden />
          </button>
        </div>
      </div>
    </aside>
  );
}
