"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { Button, Field, Input } from "./ui.tsx";

/** Creates an account: the owner on a fresh install (with the setup token), or a newcomer with an invite token. */
export function SignUpForm({
  inviteToken,
  setupToken,
  submitLabel,
}: {
  inviteToken?: string;
  setupToken?: string;
  submitLabel: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ name: "", email: "", password: "" });
  const signUp = useMutation(
    trpc.account.signUp.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.replace("/");
      },
    }),
  );
  const err = signUp.error ? errorInfo(signUp.error) : null;
  const fieldError = (name: string) => err?.fields?.[name]?.[0];

  function submit(e: FormEvent) {
    e.preventDefault();
    signUp.mutate({ ...form, inviteToken, setupToken });
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <Field label="Name" htmlFor="name" error={fieldError("name")}>
        <Input
          id="name"
          autoComplete="name"
          required
          autoFocus
          value={form.name}
          invalid={!!fieldError("name")}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
        />
      </Field>
      <Field label="Email" htmlFor="email" error={fieldError("email")}>
        <Input
          id="email"
          type="email"
          autoComplete="email"
          required
          value={form.email}
          invalid={!!fieldError("email")}
          onChange={(e) => setForm({ ...form, email: e.target.value })}
        />
      </Field>
      <Field label="Password" htmlFor="password" error={fieldError("password")} hint="At least 8 characters.">
        <Input
          id="password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          invalid={!!fieldError("password")}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
        />
      </Field>
      {err && !err.fields && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {err.message}
        </p>
      )}
      <Button type="submit" className="w-full" busy={signUp.isPending}>
        {submitLabel}
      </Button>
    </form>
  );
}
