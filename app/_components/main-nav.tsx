"use client";
/** The app's main navigation links, the current page marked: the sidebar's, and the shell frame's before the session is read. */
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { NAV, navLinkClass } from "./nav-items.ts";

/** `extra`: what a link carries after its label (the sidebar's unread count on the inbox). */
export function MainNav({ extra }: { extra?: (href: string) => ReactNode }) {
  const pathname = usePathname() ?? "/";
  return (
    <nav aria-label="Main" className="flex-1 space-y-0.5 px-2">
      {NAV.map(({ href, label, Icon }) => {
        const active = href === "/" ? pathname === "/" : pathname.startsWith(href);
        return (
          <Link key={href} href={href} aria-current={active ? "page" : undefined} className={navLinkClass(active)}>
            <Icon className="size-4" aria-hidden />
            {label}
            {extra?.(href)}
          </Link>
        );
      })}
    </nav>
  );
}
