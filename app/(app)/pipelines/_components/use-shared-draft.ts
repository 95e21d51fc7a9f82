"use client";
/**
 * A workspace pipeline's draft, shared with everyone who has its page open (server/coedit): the YAML
 * and the parameter values are read from the shared doc once it is synced; the graph's edits and the
 * assistant's are written into it as one change of the part that differs (replaceText), the
 * parameter form's field by field (writeParams) — so a teammate's graph edit shows in your YAML and
 * graph at once, and two people editing different fields never conflict. Save version saves the
 * merged draft on the server. A gallery pipeline (no room) keeps plain local state.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { useSharedDoc } from "@/app/_lib/coedit/use-shared-doc.ts";
import { useTRPC } from "@/app/_lib/trpc.ts";
import {
  PIPELINE_YAML,
  paramFieldsOf,
  parametersOf,
  pipelineParams,
  pipelineYaml,
  readPipelineDoc,
  replaceText,
  writeParams,
} from "@/server/shared/coedit.ts";
import { isSecretKey } from "@/server/shared/pipelines.ts";
import { pipelineRoom } from "@/server/shared/rooms.ts";
import type { SharedEditing } from "@/app/_components/coedit/shared-editing.tsx";
import type { ParameterFile } from "./params.ts";

const isSecretField = (key: string) => {
  const path = JSON.parse(key) as string[];
  return isSecretKey(path[path.length - 1] ?? "");
};

export function useSharedDraft(
  target: { kind: "workspace"; uid: string } | { kind: "gallery" },
  saved: { source: string; parameters: ParameterFile },
  opts: { joined: boolean; user: { id: string; name: string }; node: string | null },
) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const room = target.kind === "workspace" ? pipelineRoom(target.uid) : null;
  const { client, state, editors } = useSharedDoc(room, opts.joined, opts.user);
  const [source, setLocalSource] = useState(saved.source);
  const [parameters, setLocalParameters] = useState<ParameterFile>(saved.parameters);
  const synced = !!client && state?.status === "synced";
  const [seen, setSeen] = useState(false);
  if (synced && !seen) setSeen(true);

  // From the first sync on, the doc is the draft: what anyone types shows here.
  useEffect(() => {
    if (!client || !seen) return;
    const read = () => {
      const draft = readPipelineDoc(client.doc, saved.parameters);
      setLocalSource(draft.source);
      setDocParameters(draft.parameters as ParameterFile);
    };
    read();
    // What was typed before the draft arrived goes into it now, instead of being replaced by it.
    const { source: typed, parameters: set } = early.current;
    early.current = {};
    if (typed !== undefined) replaceText(pipelineYaml(client.doc), typed);
    if (set) writeParams(pipelineParams(client.doc), set, isSecretField);
    if (typed !== undefined || set) read();
    client.doc.on("update", read);
    return () => client.doc.off("update", read);
  }, [client, seen, saved.parameters]);

  useEffect(() => {
    client?.awareness.setLocalStateField("node", opts.node);
  }, [client, opts.node]);

  const shared = client && seen && !state?.readOnly;
  const early = useRef<{ source?: string; parameters?: ParameterFile }>({});
  const setSource = useCallback(
    (next: string) => {
      if (shared) return replaceText(pipelineYaml(client.doc), next);
      if (room) early.current.source = next;
      setLocalSource(next);
    },
    [client, shared, room],
  );
  // Secrets typed here (API keys) stay in this tab, never in the shared draft: saved with the version.
  const [secrets, setSecrets] = useState<ReadonlyMap<string, unknown>>(new Map());
  const [docParameters, setDocParameters] = useState<ParameterFile | null>(null);
  const setParameters = useCallback(
    (next: ParameterFile) => {
      if (!shared) {
        if (room) early.current.parameters = next;
        return setLocalParameters(next);
      }
      const map = pipelineParams(client.doc);
      writeParams(map, next, isSecretField);
      const typed = new Map([...paramFieldsOf(next)].filter(([k, v]) => isSecretField(k) && v !== map.get(k)));
      setSecrets(typed);
    },
    [client, shared, room],
  );
  useEffect(() => {
    if (!docParameters) return;
    const fields = paramFieldsOf(docParameters);
    // A secret shows as saved (the mask when one is stored), or as typed here: the doc has neither.
    const stored = paramFieldsOf(saved.parameters);
    for (const k of fields.keys()) if (isSecretField(k) && stored.has(k)) fields.set(k, stored.get(k));
    for (const [k, v] of secrets) fields.set(k, v);
    setLocalParameters(parametersOf(fields, saved.parameters) as ParameterFile);
  }, [docParameters, secrets, saved.parameters]);

  useEffect(() => {
    if (!client) return;
    return client.onNoticeReceived(async (notice) => {
      if (notice.kind !== "saved") return;
      toast.success(`${notice.by} saved version ${notice.version}`);
      await queryClient.invalidateQueries({ queryKey: trpc.pipelines.pathKey() });
    });
  }, [client, queryClient, trpc]);

  // With a secret typed here the version is saved with it (the caller's save), not from the draft.
  const save =
    client && seen && secrets.size === 0
      ? async () => {
          const reply = await client.save();
          if (!reply.ok) toast.error(reply.message);
        }
      : null;
  const editing: SharedEditing | null =
    client && seen && state
      ? { text: client.doc.getText(PIPELINE_YAML), awareness: client.awareness, state, editors }
      : null;

  // Unsaved changes are kept on the server in a shared draft: leaving loses only what was not sent.
  const dirty = source !== saved.source || JSON.stringify(parameters) !== JSON.stringify(saved.parameters);
  const atRisk = editing ? editing.state.unsent : dirty;
  useEffect(() => {
    if (!atRisk) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [atRisk]);
  return { source, setSource, parameters, setParameters, save, editing, dirty };
}
