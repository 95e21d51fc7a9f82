"use client";
/**
 * The workspace's model connections as pickers and notices show them: one label per connection
 * ("<name> · <model>", the default marked), the value a picker preselects (the workspace's default —
 * never a keyless server default), and the notice a feature that needs a model shows when the
 * workspace has none, linking to Settings → Model providers.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { useWorkspace } from "@/app/_lib/workspace.tsx";
import { cx } from "./ui.tsx";

/** Where links to Settings → Model providers land. */
export const MODEL_PROVIDERS_ID = "model-providers";
export const MODEL_PROVIDERS_HREF = `/settings#${MODEL_PROVIDERS_ID}`;

/** A picker's value for the server's environment default (sent as a null connection). */
export const ENVIRONMENT = "environment";

interface ConnectionLike {
  uid: string | null;
  name: string;
  model: string | null;
  isDefault: boolean;
  usable: boolean;
}

export const connectionValue = (c: Pick<ConnectionLike, "uid">) => c.uid ?? ENVIRONMENT;

export function connectionOptionLabel(c: ConnectionLike): string {
  const base = c.model ? `${c.name} · ${c.model}` : c.name;
  if (!c.usable) return `${base} (no key configured)`;
  return c.isDefault ? `${base} (default)` : base;
}

/** The value to preselect: the connection marked default, else the first usable one; "" when none can answer. */
export function preselectedConnection(list: readonly ConnectionLike[] | undefined): string {
  const usable = list?.filter((c) => c.usable) ?? [];
  const pick = usable.find((c) => c.isDefault) ?? usable[0];
  return pick ? connectionValue(pick) : "";
}

/** The workspace's connections and the one to preselect. */
export function useModelConnections(enabled = true) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const list = useQuery({ ...trpc.providers.list.queryOptions({ workspaceId: workspace.id }), enabled });
  const preselected = useMemo(() => preselectedConnection(list.data), [list.data]);
  return { list, preselected };
}

/**
 * "This needs a model and the workspace has none" with the link to add one, or nothing. `needs` is a
 * pipeline's front matter value (llm, knowledge…); a feature that always needs a model passes "llm".
 */
export function NoModelNotice({ needs, className }: { needs: string | undefined; className?: string }) {
  const trpc = useTRPC();
  const { workspace } = useWorkspace();
  const wanted = needs === "llm" || needs === "knowledge";
  const model = useQuery({
    ...trpc.providers.workspaceDefault.queryOptions({ workspaceId: workspace.id }),
    enabled: wanted,
    staleTime: 30_000,
  });
  if (!wanted || model.data !== null) return null;
  return (
    <p role="note" className={cx("text-xs text-amber-800 dark:text-amber-200", className)}>
      Needs a model, and this workspace has none yet.{" "}
      <Link href={MODEL_PROVIDERS_HREF} className="font-medium underline">
        Add one in Settings → Model providers
      </Link>
    </p>
  );
}
