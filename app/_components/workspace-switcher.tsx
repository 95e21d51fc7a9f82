"use client";
/**
 * The sidebar's workspace menu: shows the current workspace and the user's role in it, switches to
 * another one (arrow keys, Enter, Escape — Headless UI's Menu), opens "New workspace" and the members.
 */
import { Menu, MenuButton, MenuHeading, MenuItem, MenuItems, MenuSection, MenuSeparator } from "@headlessui/react";
import { Check, ChevronsUpDown, Plus, Users } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { NEW_WORKSPACE_PARAM, useWorkspace } from "@/app/_lib/workspace.tsx";
import { Badge, cx } from "./ui.tsx";

const roleText = { owner: "Owner", member: "Member", viewer: "Read-only" } as const;
const roleTone = { owner: "brand", member: "green", viewer: "amber" } as const;
const itemClass =
  "flex w-full items-center gap-2 rounded px-2 py-1.5 text-left text-sm data-focus:bg-zinc-100 dark:data-focus:bg-zinc-800";

export function WorkspaceSwitcher() {
  const { workspace, workspaces, selectWorkspace, canCreateWorkspace } = useWorkspace();
  const pathname = usePathname();
  const router = useRouter();

  function switchTo(id: string) {
    if (id === workspace.id) return;
    selectWorkspace(id);
    // A detail page shows something of the old workspace: go to the same section's list instead.
    const [, section] = pathname.split("/");
    if (pathname.split("/").length > 2) router.push(`/${section}`);
  }

  return (
    <Menu>
      <MenuButton
        className="flex w-full items-center gap-2 rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-left text-sm hover:bg-zinc-50 focus:outline-none data-focus:ring-2 data-focus:ring-brand-500/40 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
        data-testid="workspace-switcher"
      >
        <span className="min-w-0 flex-1">
          <span className="block truncate font-medium">{workspace.name}</span>
          <span className="sr-only">, current workspace. Switch workspace</span>
          <span className="mt-0.5 block" aria-hidden>
            <Badge tone={roleTone[workspace.role]}>{roleText[workspace.role]}</Badge>
          </span>
        </span>
        <ChevronsUpDown className="size-4 shrink-0 text-zinc-400" aria-hidden />
      </MenuButton>
      <MenuItems
        anchor="bottom start"
        className="z-40 w-(--button-width) min-w-56 rounded-md border border-zinc-200 bg-white p-1 shadow-lg focus:outline-none [--anchor-gap:4px] dark:border-zinc-800 dark:bg-zinc-900"
      >
        <MenuSection>
          <MenuHeading className="px-2 py-1 text-xs font-medium text-zinc-500">Workspaces</MenuHeading>
          {workspaces.map((w) => (
            <MenuItem key={w.id}>
              <button
                type="button"
                className={itemClass}
                onClick={() => switchTo(w.id)}
                aria-current={w.id === workspace.id ? "true" : undefined}
              >
                <Check className={cx("size-4 shrink-0", w.id !== workspace.id && "invisible")} aria-hidden />
                <span className="min-w-0 flex-1 truncate">{w.name}</span>
                <span className="text-xs text-zinc-500">{roleText[w.role]}</span>
              </button>
            </MenuItem>
          ))}
        </MenuSection>
        <MenuSeparator className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" />
        {canCreateWorkspace && (
          <MenuItem>
            <Link href={`${pathname}?${NEW_WORKSPACE_PARAM}`} className={itemClass}>
              <Plus className="size-4" aria-hidden /> New workspace…
            </Link>
          </MenuItem>
        )}
        <MenuItem>
          <Link href="/settings#members" className={itemClass}>
            <Users className="size-4" aria-hidden /> Members
          </Link>
        </MenuItem>
      </MenuItems>
    </Menu>
  );
}
