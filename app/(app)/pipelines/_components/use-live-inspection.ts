"use client";
/**
 * Live validation of pipeline YAML, for the workbench and the import dialog alike: the engine on the
 * server checks the text (and parameter file) 150 ms after the last change; only the latest answer
 * is kept, so a slow early answer never overwrites a later one. Until the first change the caller's
 * `initial` inspection stands (the page's saved one; none in the import dialog). Empty text is not
 * sent: there is nothing to check.
 */
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { errorInfo, useTRPC } from "@/app/_lib/trpc.ts";
import type { ParameterFile } from "./params.ts";
import type { PipelineInspection } from "./types.ts";

export const REVALIDATE_MS = 150;

export function useLiveInspection(
  workspaceId: string,
  source: string,
  options: { parameters?: ParameterFile; initial?: PipelineInspection; reportErrors?: boolean } = {},
): PipelineInspection | undefined {
  const { parameters, initial, reportErrors = true } = options;
  const trpc = useTRPC();
  const [inspection, setInspection] = useState<PipelineInspection | undefined>(undefined);
  const latest = useRef(0);
  const { mutateAsync } = useMutation(trpc.pipelines.validate.mutationOptions());
  // What the caller opened with: while nothing changed, `initial` stands (no request on load).
  const pristine = useRef<{ source: string; parameters: ParameterFile | undefined } | null>({ source, parameters });
  useEffect(() => {
    const opened = pristine.current;
    if (opened && opened.source === source && opened.parameters === parameters) return;
    pristine.current = null;
    if (!source.trim()) return;
    const id = ++latest.current;
    const t = setTimeout(() => {
      mutateAsync({ workspaceId, source, ...(parameters ? { parameters } : {}) })
        .then((r) => {
          if (id === latest.current) setInspection(r);
        })
        .catch((err: unknown) => {
          if (id === latest.current && reportErrors) toast.error(errorInfo(err).message);
        });
    }, REVALIDATE_MS);
    return () => clearTimeout(t);
  }, [workspaceId, source, parameters, mutateAsync, reportErrors]);
  return inspection ?? initial;
}
