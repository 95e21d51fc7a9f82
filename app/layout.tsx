import type { Metadata } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "./_components/providers.tsx";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Argus", template: "%s · Argus" },
  description: "AI code review, together.",
  icons: { icon: "/favicon.svg" },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The per-response CSP nonce (server/web/security-headers.ts). Reading the request makes every
  // page render per request, which a nonce needs: a prerendered page could not carry a fresh one.
  // Next puts it on its own scripts; next-themes' inline theme script needs it passed.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // next-themes sets the theme class before first paint; the server cannot know it.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen font-sans">
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
