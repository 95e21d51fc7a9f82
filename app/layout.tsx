import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "./_components/providers.tsx";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Argus", template: "%s · Argus" },
  description: "AI code review, together.",
  icons: { icon: "/favicon.svg" },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // next-themes sets the theme class before first paint; the server cannot know it.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
