"use client";
/**
 * The signed-in frame before the session is read: the same layout as the app shell (the top bar on
 * phones, the sidebar with its navigation from md up) and a skeleton of a page where the page will
 * be. The server renders it into the HTML, so a page's first paint is this frame — not a blank
 * white page until the scripts have run and `account.me` has answered (issue 28, point 3).
 */
import { Logo } from "./logo.tsx";
import { MainNav } from "./main-nav.tsx";
import { PageSkeleton } from "./ui.tsx";

export function ShellFrame() {
  return (
    <div className="flex min-h-screen flex-col md:flex-row" data-shell="frame">
      <header className="sticky top-0 z-20 flex items-center gap-3 border-b border-zinc-200 bg-white/95 px-3 py-2 md:hidden dark:border-zinc-800 dark:bg-zinc-950/95">
        <span className="size-9" aria-hidden />
        <Logo />
      </header>
      <aside className="flex w-60 shrink-0 flex-col border-r border-zinc-200 bg-zinc-50 max-md:hidden dark:border-zinc-800 dark:bg-zinc-900/50">
        <div className="px-4 py-4">
          <Logo />
        </div>
        <div className="px-3 pb-3">
          <div className="h-9 animate-pulse rounded-md bg-zinc-200/70 dark:bg-zinc-800/60" aria-hidden />
        </div>
        <MainNav />
      </aside>
      <main className="min-w-0 flex-1 px-4 py-5 md:px-8 md:py-7">
        <PageSkeleton />
      </main>
    </div>
  );
}
