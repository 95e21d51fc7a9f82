"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { SignUpForm } from "@/app/_components/sign-up-form.tsx";
import { DelayedSkeleton } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";

export default function SignUpPage() {
  const trpc = useTRPC();
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
  return (
    <>
      <h1 className="text-lg font-semibold">Set up Argus</h1>
      <p className="mb-5 mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Create the owner account. You can invite your team next.
      </p>
      <SignUpForm submitLabel="Create owner account" />
    </>
  );
}
