"use client";
/** What the pipeline page keeps in its address: the open tab (`?tab=`) and the selected step (`?node=`). */
import { useSearchParams } from "next/navigation";
import { useCallback } from "react";
import { useReplaceQuery } from "./use-replace-query.ts";

export const TABS = ["yaml", "parameters", "assistant", "runs", "versions"] as const;
export type Tab = (typeof TABS)[number];

export function useWorkbenchAddress() {
  const search = useSearchParams();
  const replaceQuery = useReplaceQuery();
  const tab: Tab = (TABS as readonly string[]).includes(search.get("tab") ?? "") ? (search.get("tab") as Tab) : "yaml";
  const nodeId = search.get("node");
  const setParam = useCallback(
    (key: string, value: string | null) => {
      const next = new URLSearchParams(search.toString());
      if (value === null) next.delete(key);
      else next.set(key, value);
      replaceQuery(next);
    },
    [replaceQuery, search],
  );
  return { tab, nodeId, setParam };
}
