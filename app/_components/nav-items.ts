/** The app's main navigation: the sidebar's links, also drawn by the shell frame before the session is read. */
import {
  BookOpen,
  FolderGit2,
  Inbox,
  LayoutDashboard,
  MessageSquareText,
  Settings,
  SearchCheck,
  Workflow,
} from "lucide-react";
import { cx } from "./ui.tsx";

export const NAV = [
  { href: "/", label: "Dashboard", Icon: LayoutDashboard },
  { href: "/inbox", label: "Inbox", Icon: Inbox },
  { href: "/projects", label: "Projects", Icon: FolderGit2 },
  { href: "/reviews", label: "Reviews", Icon: SearchCheck },
  { href: "/pipelines", label: "Pipelines", Icon: Workflow },
  { href: "/knowledge", label: "Knowledge", Icon: BookOpen },
  { href: "/prompts", label: "Prompts", Icon: MessageSquareText },
  { href: "/settings", label: "Settings", Icon: Settings },
];

export const navLinkClass = (active: boolean) =>
  cx(
    "flex items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm",
    active
      ? "bg-zinc-200/80 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-white"
      : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800/60",
  );
