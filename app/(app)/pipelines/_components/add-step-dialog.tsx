"use client";
/**
 * Add a step from the server registry: pick a built-in server and one of its tools (what it reads
 * and writes shown), and the YAML gets `- alias.tool` at the end of `pipeline:` — and the alias under
 * `servers:` when the pipeline has none for that server. The YAML stays the source of truth: the
 * graph follows it like any edit.
 */
import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { isMap, isSeq, parseDocument } from "yaml";
import { Field, FormActions, FormError, Modal, Select } from "@/app/_components/ui.tsx";
import { useTRPC } from "@/app/_lib/trpc.ts";

/** The YAML with the step appended (and the server's alias added); an error sentence when it cannot be. */
export function appendStep(
  source: string,
  server: string,
  tool: string,
): { ok: true; source: string } | { ok: false; error: string } {
  const doc = parseDocument(source);
  if (doc.errors.length)
    return { ok: false, error: "Fix the YAML's syntax first: the step is added to a pipeline that parses." };
  if (!isMap(doc.contents)) return { ok: false, error: "The YAML should be a mapping with servers: and pipeline:." };
  let servers = doc.get("servers");
  if (!isMap(servers)) {
    doc.set("servers", doc.createNode({}));
    servers = doc.get("servers");
  }
  const path = `servers/${server}`;
  const map = servers as { items: { key: unknown; value: unknown }[] };
  const entry = map.items.find(
    (p) => String((p.value as { value?: unknown })?.value ?? p.value).replace(/\/+$/, "") === path,
  );
  let alias = entry ? String((entry.key as { value?: unknown })?.value ?? entry.key) : server;
  if (!entry) {
    const taken = new Set(map.items.map((p) => String((p.key as { value?: unknown })?.value ?? p.key)));
    for (let n = 2; taken.has(alias); n++) alias = `${server}${n}`;
    doc.setIn(["servers", alias], path);
  }
  const pipeline = doc.get("pipeline");
  if (!isSeq(pipeline)) doc.set("pipeline", doc.createNode([`${alias}.${tool}`]));
  else pipeline.add(doc.createNode(`${alias}.${tool}`));
  return { ok: true, source: doc.toString({ indentSeq: true, lineWidth: 0 }) };
}

export function AddStepDialog({
  open,
  onClose,
  workspaceId,
  source,
  onAdd,
}: {
  open: boolean;
  onClose: () => void;
  workspaceId: string;
  source: string;
  onAdd: (source: string) => void;
}) {
  const trpc = useTRPC();
  const registry = useQuery({ ...trpc.pipelines.servers.queryOptions({ workspaceId }), enabled: open });
  const [server, setServer] = useState("benchmark");
  const [tool, setTool] = useState("");
  const [error, setError] = useState<string | null>(null);
  const servers = registry.data ?? [];
  const tools = servers.find((s) => s.server === server)?.tools ?? [];
  const picked = tools.find((t) => t.tool === tool) ?? tools[0];

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!picked) return setError("Pick a tool.");
    const r = appendStep(source, server, picked.tool);
    if (!r.ok) return setError(r.error);
    onAdd(r.source);
    onClose();
  }

  return (
    <Modal open={open} onClose={onClose} title="Add a step">
      <form onSubmit={submit} className="space-y-4">
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
        <Field label="Tool" htmlFor="step-tool">
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
        <FormError message={error} />
        <FormActions onCancel={onClose} submitLabel="Add step" busy={false} />
      </form>
    </Modal>
  );
}
