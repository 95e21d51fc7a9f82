"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { SignUpForm } from "@/app/_components/sign-up-form.tsx";
import { DelayedSkeleton } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";

function SetUp() {
  const trpc = useTRPC();
  // The one-time setup link printed in the server log: /sign-up?setup=<token>.
  const setupToken = useSearchParams().get("setup") ?? undefined;
  const setup = useQuery(trpc.account.setupState.queryOptions());
  if (!setup.data) return <DelayedSkeleton rows={3} />;
  if (!setup.data.needsSetup) {
    return (
      <div className="space-y-3 text-sm">
        <h1 className="text-lg font-semibold">Argus is already set up</h1>
        <p className="text-zinc-600 dark:text-zinc-400">
          New accounts join through an invite link from a workspace owner.
        </p>
        <Link href="/sign-in" className="font-medium text-brand-600 hover:underline">
          Sign in →
        </Link>
      </div>
    );
  }
  if (!setupToken) {
    return (
      <div className="space-y-3 text-sm">
        <h1 className="text-lg font-semibold">Set up Argus</h1>
        <p className="text-zinc-600 dark:text-zinc-400">
          Open the setup link printed in the server log to create the owner account. When Argus started it logged a line
          like <code className="break-all">http://…/sign-up?setup=…</code>; only that link can set Argus up, so whoever
          reaches this page first cannot take it over.
        </p>
        <p className="text-zinc-600 dark:text-zinc-400">
          Lost the log? Restart the server: each start prints a new link. Automated installs can preset the token with{" "}
          <code>SETUP_TOKEN</code>.
        </p>
      </div>
    );
  }
  return (
    <>
      <h1 className="text-lg font-semibold">Set up Argus</h1>
      <p className="mb-5 mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Create the owner account. You can invite your team next.
      </p>
      <SignUpForm setupToken={setupToken} submitLabel="Create owner account" />
    </>
  );
}

export default function SignUpPage() {
  return (
    <Suspense>
      <SetUp />
    </Suspense>
  );
}
