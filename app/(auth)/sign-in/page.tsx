"use client";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useState, type FormEvent } from "react";
import { Button, Field, Input } from "@/app/_components/ui.tsx";
import { authClient } from "@/app/_lib/auth-client.ts";
import { safeNextPath } from "@/server/shared/safe-next.ts";

function SignInForm() {
  const router = useRouter();
  const params = useSearchParams();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const { error } = await authClient.signIn.email({ email, password });
    setBusy(false);
    if (error) {
      setError(
        error.status === 401
          ? "That email and password don't match an account."
          : (error.message ?? "Sign-in failed. Try again."),
      );
      return;
    }
    await queryClient.invalidateQueries();
    // Only same-site paths: an attacker's ?next=/\evil.example must not redirect off-site.
    router.replace(safeNextPath(params.get("next")));
  }

  return (
    <form onSubmit={submit} className="space-y-4">
      <Field label="Email" htmlFor="email">
        <Input
          id="email"
          type="email"
          autoComplete="email"
          required
          autoFocus
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field label="Password" htmlFor="password">
        <Input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {error && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      <Button type="submit" className="w-full" busy={busy}>
        Sign in
      </Button>
    </form>
  );
}

export default function SignInPage() {
  return (
    <>
      <h1 className="mb-5 text-lg font-semibold">Sign in to Argus</h1>
      <Suspense>
        <SignInForm />
      </Suspense>
      <p className="mt-5 text-xs text-zinc-500">
        New here? Ask a workspace owner for an invite link. Setting Argus up for the first time?{" "}
        <Link href="/sign-up" className="text-brand-600 hover:underline">
          Create the owner account
        </Link>
        .
      </p>
    </>
  );
}
