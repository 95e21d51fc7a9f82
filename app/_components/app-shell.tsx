"use client";
/**
 * The signed-in frame around every page. From the md breakpoint up the sidebar stands beside the
 * page; below it (phones) a top bar holds a menu button that opens the sidebar as a drawer: focus
 * moves into it and Tab stays inside, Esc, the backdrop, "Close menu" or a navigation close it, and
 * focus returns to the button. The page never scrolls sideways because of the frame (`min-w-0`).
 */
import { Menu } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { useInboxPushes } from "@/app/_lib/inbox.ts";
import { Logo } from "./logo.tsx";
import { Sidebar } from "./sidebar.tsx";

const DRAWER_ID = "app-sidebar";
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';
/** Tailwind's md breakpoint: from here on the sidebar is not a drawer. */
const WIDE = "(min-width: 48rem)";

export function AppShell({ children }: { children: ReactNode }) {
  useInboxPushes();
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  const drawer = useRef<HTMLElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);

  const close = useCallback(() => {
    setOpen(false);
    menuButton.current?.focus();
  }, []);

  // A navigation from the drawer closes it.
  useEffect(() => {
    setOpen(false);
  }, [pathname]);

  // Growing past the breakpoint leaves no drawer open behind the sidebar.
  useEffect(() => {
    const wide = window.matchMedia(WIDE);
    const onChange = () => {
      if (wide.matches) setOpen(false);
    };
    wide.addEventListener("change", onChange);
    return () => wide.removeEventListener("change", onChange);
  }, []);

  useEffect(() => {
    if (!open) return;
    const panel = drawer.current;
    const focusables = () => [...(panel?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
    focusables()[0]?.focus();
    const onKey = (e: KeyboardEvent) => {
      // A menu inside the drawer (the workspace switcher) handles its own Esc first.
      if (e.defaultPrevented || !panel) return;
      if (e.key === "Escape") {
        e.preventDefault();
        close();
        return;
      }
      if (e.key !== "Tab" || !panel.contains(document.activeElement)) return;
      const items = focusables();
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) return;
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    };
    // Following a link closes the drawer, also one to the page already shown (no navigation then).
    const onClick = (e: MouseEvent) => {
      if (e.target instanceof Element && e.target.closest("a[href]")) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    panel?.addEventListener("click", onClick);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = "hidden"; // the page behind does not scroll under the drawer
    return () => {
      document.removeEventListener("keydown", onKey);
      panel?.removeEventListener("click", onClick);
      document.body.style.overflow = overflow;
    };
  }, [open, close]);

  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <header className="sticky top-0 z-20 flex items-center gap-3 border-b border-zinc-200 bg-white/95 px-3 py-2 backdrop-blur md:hidden dark:border-zinc-800 dark:bg-zinc-950/95">
        <button
          ref={menuButton}
          type="button"
          onClick={() => setOpen(true)}
          aria-label="Open menu"
          aria-expanded={open}
          aria-controls={DRAWER_ID}
          className="rounded-md p-2 text-zinc-700 hover:bg-zinc-100 dark:text-zinc-200 dark:hover:bg-zinc-800"
        >
          <Menu className="size-5" aria-hidden />
        </button>
        <Link href="/" className="rounded">
          <Logo />
        </Link>
      </header>
      {open && <div className="fixed inset-0 z-30 bg-zinc-950/40 md:hidden" onClick={close} aria-hidden />}
      <Sidebar ref={drawer} id={DRAWER_ID} drawerOpen={open} onClose={close} />
      <main className="min-w-0 flex-1 px-4 py-5 md:px-8 md:py-7">{children}</main>
    </div>
  );
}
