/**
 * The signed-in part of Argus (./signed-in.tsx). The server reads the session's `account.me` first,
 * so the shell and the page render into the HTML; signed out, the browser redirects as it always did.
 */
import type { ReactNode } from "react";
import { Prefetch } from "@/app/_lib/server-prefetch.tsx";
import { SignedIn } from "./signed-in.tsx";

export default function AppLayout({ children }: { children: ReactNode }) {
  return (
    <Prefetch load={({ trpc, fetch }) => fetch(trpc.account.me.queryOptions())}>
      <SignedIn>{children}</SignedIn>
    </Prefetch>
  );
}
