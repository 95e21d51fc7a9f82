import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Logo } from "@/app/_components/logo.tsx";

// A share link's page is for whoever has the link: not for search engines.
export const metadata: Metadata = { title: "Shared review", robots: { index: false, follow: false } };

/** Outside the signed-in shell: no sidebar, no workspace — only the shared review. */
export default function ShareLayout({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-screen bg-zinc-50 dark:bg-zinc-950">
      <header className="border-b border-zinc-200 bg-white px-4 py-3 sm:px-8 dark:border-zinc-800 dark:bg-zinc-900">
        <Logo />
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6 sm:px-8">{children}</main>
    </div>
  );
}
