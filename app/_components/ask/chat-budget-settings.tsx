"use client";
/**
 * Settings → Chat budget: what Ask Argus may spend per UTC day across the workspace (tokens, dollars,
 * or both; empty: no limit), and what today's answers spent. Owners change it; everyone sees it.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import { useHydrated } from "@/app/_lib/use-hydrated.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { formatCount } from "../review/format.ts";
import { Button, Card, Field, FormError, Input } from "../ui.tsx";

export function ChatBudgetSettings() {
  const { workspace } = useWorkspace();
  const trpc = useTRPC();
  const id = useId();
  const budget = useQuery(trpc.ask.budget.queryOptions({ workspaceId: workspace.id }));
  // Counts in the server's form until hydrated (app/_lib/use-hydrated.ts).
  const local = useHydrated();
  const [tokens, setTokens] = useState("");
  const [dollars, setDollars] = useState("");
  useEffect(() => {
    if (!budget.data) return;
    setTokens(budget.data.maxTokens?.toString() ?? "");
    setDollars(budget.data.maxCostUsd?.toString() ?? "");
  }, [budget.data]);
  const save = useMutation(
    trpc.ask.setBudget.mutationOptions({
      onSuccess: () => {
        toast.success("Chat budget saved");
        void budget.refetch();
      },
    }),
  );
  const owner = workspace.role === "owner";
  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({
      workspaceId: workspace.id,
      maxTokens: tokens.trim() ? Number(tokens) : null,
      maxCostUsd: dollars.trim() ? Number(dollars) : null,
    });
  }
  const b = budget.data;
  return (
    <Card className="p-5">
      <h2 className="font-medium">Chat budget</h2>
      <p className="mt-1 text-sm text-zinc-500">
        What Ask Argus may spend per day (UTC) across this workspace. Past it, questions are refused until 00:00 UTC.
      </p>
      {b && (
        <p className="mt-2 text-sm" aria-label="Spent today">
          Today: {formatCount(b.spent.tokens, local)} tokens, ${b.spent.costUsd.toFixed(2)}
          {b.exhausted ? " — the budget is spent" : ""}.
        </p>
      )}
      <form onSubmit={submit} className="mt-3 grid max-w-md grid-cols-2 gap-3">
        <Field label="Tokens a day" htmlFor={`${id}-tokens`} hint="empty: no limit">
          <Input
            id={`${id}-tokens`}
            inputMode="numeric"
            value={tokens}
            disabled={!owner}
            onChange={(e) => setTokens(e.target.value)}
          />
        </Field>
        <Field label="Dollars a day" htmlFor={`${id}-usd`} hint="empty: no limit">
          <Input
            id={`${id}-usd`}
            inputMode="decimal"
            value={dollars}
            disabled={!owner}
            onChange={(e) => setDollars(e.target.value)}
          />
        </Field>
        <FormError className="col-span-2" message={save.error ? errorInfo(save.error).message : null} />
        {owner && (
          <div className="col-span-2">
            <Button type="submit" busy={save.isPending}>
              Save budget
            </Button>
          </div>
        )}
      </form>
    </Card>
  );
}
