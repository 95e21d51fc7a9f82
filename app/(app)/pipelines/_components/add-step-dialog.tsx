"use client";
/**
 * Add a step, a loop or a branch from the server registry: pick a built-in server and one of its
 * tools (what it reads and writes shown) — for a loop also how many times, for a branch the router
 * and the states it returns — and the YAML gets it after the node selected on the graph (or at the
 * end of `pipeline:`), with the server's alias under `servers:` when the pipeline has none for it.
 * The YAML stays the source of truth (graph-edits.ts): the graph follows it.
 */
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Field, FormActions, FormError, Input, Modal, Select } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";
import { insertStep, type NewStep } from "./graph-edits.ts";

export type AddKind = NewStep["kind"];
const TITLE: Record<AddKind, string> = { tool: "Add a step", loop: "Add a loop", branch: "Add a branch" };

export function AddStepDialog({
  open,
  kind = "tool",
  after = null,
  afterLabel = null,
  onClose,
  workspaceId,
  source,
  onAdd,
}: {
  open: boolean;
  kind?: AddKind;
  /** The graph node to add after (its id), or null for the end of the pipeline. */
  after?: string | null;
  afterLabel?: string | null;
  onClose: () => void;
  workspaceId: string;
  source: string;
  onAdd: (source: string) => void;
}) {
  const trpc = useTRPC();
  const registry = useQuery({ ...trpc.pipelines.servers.queryOptions({ workspaceId }), enabled: open });
  const [chosen, setServer] = useState<string | null>(null);
  const server = chosen ?? (kind === "branch" ? "router" : kind === "loop" ? "generation" : "benchmark");
  const [tool, setTool] = useState("");
  const [times, setTimes] = useState("2");
  const [states, setStates] = useState("complete, incomplete");
  const [error, setError] = useState<string | null>(null);
  const servers = registry.data ?? [];
  const tools = servers.find((s) => s.server === server)?.tools ?? [];
  const picked = tools.find((t) => t.tool === tool) ?? tools[0];

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!picked) return setError("Pick a tool.");
    let step: NewStep;
    if (kind === "loop") {
      const n = Number(times);
      if (!/^\d+$/.test(times.trim())) return setError("Times: a whole number, e.g. 3.");
      step = { kind, times: n, server, tool: picked.tool };
    } else if (kind === "branch") step = { kind, server, router: picked.tool, states: states.split(",") };
    else step = { kind, server, tool: picked.tool };
    const r = insertStep(source, step, after);
    if (!r.ok) return setError(r.error);
    setError(null);
    onAdd(r.source);
    onClose();
  }

  return (
    <Modal open={open} onClose={onClose} title={TITLE[kind]}>
      <form onSubmit={submit} className="space-y-4">
        <p className="text-sm text-zinc-500">
          {afterLabel ? <>After {afterLabel} (selected on the graph).</> : <>At the end of the pipeline.</>}
        </p>
        <Field label="Server" htmlFor="step-server">
          <Select
            id="step-server"
            value={server}
            onChange={(e) => {
              setServer(e.target.value);
              setTool("");
            }}
          >
            {servers.map((s) => (
              <option key={s.server} value={s.server}>
                {s.path}
              </option>
            ))}
          </Select>
        </Field>
        <Field
          label={kind === "branch" ? "Router" : kind === "loop" ? "First step of the loop" : "Tool"}
          htmlFor="step-tool"
        >
          <Select id="step-tool" value={picked?.tool ?? ""} onChange={(e) => setTool(e.target.value)}>
            {tools.map((t) => (
              <option key={t.tool} value={t.tool}>
                {t.tool}
                {t.kind === "prompt" ? " (prompt)" : ""}
              </option>
            ))}
          </Select>
        </Field>
        {picked && (
          <div className="rounded-md bg-zinc-50 p-3 text-sm dark:bg-zinc-950" aria-live="polite">
            <p>{picked.doc}</p>
            <p className="mt-2 font-mono text-xs text-zinc-500">
              reads{" "}
              {Object.entries(picked.input)
                .map(([k, v]) => `${k} ← ${v}`)
                .join(", ") || "nothing"}
            </p>
            <p className="font-mono text-xs text-zinc-500">writes {picked.output.join(", ") || "nothing"}</p>
          </div>
        )}
        {kind === "loop" && (
          <Field label="Times" htmlFor="loop-times" hint="How many passes the loop makes (1–1000).">
            <Input id="loop-times" inputMode="numeric" value={times} onChange={(e) => setTimes(e.target.value)} />
          </Field>
        )}
        {kind === "branch" && (
          <Field
            label="States"
            htmlFor="branch-states"
            hint="The states the router returns, separated by commas; each gets an empty list of steps to fill."
          >
            <Input id="branch-states" value={states} onChange={(e) => setStates(e.target.value)} />
          </Field>
        )}
        <FormError message={error} />
        <FormActions onCancel={onClose} submitLabel={TITLE[kind].replace("a ", "")} busy={false} />
      </form>
    </Modal>
  );
}
