/** Pipelines over tRPC against the real server: gallery, validation, versions, runs and their rooms. */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runsRoot } from "../../pipelines/workspace/run-dir.ts";
import { SECRET_MASK } from "../../shared/pipelines.ts";
import { runRoom } from "../../shared/rooms.ts";
import { Client, type TestUser } from "../../../test/helpers/server.ts";
import { startServerWithTeam } from "./test-support.ts";

const { server, owner, member, viewer } = await startServerWithTeam();
const ws = owner.workspaceId;

interface Diagnostic {
  line: number;
  col: number;
  severity: string;
  message: string;
  code: string;
}
interface Inspection {
  ok: boolean;
  diagnostics: Diagnostic[];
  graph: {
    nodes: { id: string; kind: string; label: string; inputs: { name: string; from: string }[]; outputs: unknown[] }[];
    edges: { source: string; target: string; kind: string; label?: string }[];
  } | null;
  tools: Record<string, { doc: string; server: string }>;
  fields: { alias: string; path: string[]; value: unknown; secret: boolean; set?: boolean; type: string }[];
}
interface Run {
  uid: string;
  status: string;
  error: string | null;
  answer: string | null;
  steps: number | null;
  params: Record<string, Record<string, unknown>>;
  pipelineVersion: number | null;
  dataset: { kind: string; name?: string; items?: number; question?: string } | null;
  evaluation: { step: string; rows: { metric: string; mean: number | null; perItem?: number[] }[] }[];
  cases: number;
}

async function finished(uid: string, user: TestUser = member): Promise<Run> {
  for (let i = 0; i < 200; i++) {
    const run = await user.client.ok<Run>("query", "pipelines.run", { uid });
    if (run.status !== "running") return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${uid} did not finish`);
}

const validate = (source: string, parameters?: unknown) =>
  member.client.ok<Inspection>("mutate", "pipelines.validate", {
    workspaceId: ws,
    source,
    ...(parameters ? { parameters } : {}),
  });

describe("the gallery", () => {
  it("lists the built-in pipelines with their front matter, and none of the workspace's yet", async () => {
    const list = await viewer.client.ok<{
      pipelines: unknown[];
      gallery: { key: string; title: string; needs: string; tags: string[]; lastRun: unknown }[];
    }>("query", "pipelines.list", { workspaceId: ws });
    expect(list.pipelines).toEqual([]);
    expect(list.gallery.length).toBeGreaterThanOrEqual(15);
    expect(list.gallery.find((g) => g.key === "bm25_search")).toEqual({
      key: "bm25_search",
      title: "BM25 search",
      description: expect.stringContaining("BM25"),
      tags: ["retrieval", "bm25"],
      needs: "none",
      lastRun: null,
    });
    expect(list.gallery.find((g) => g.key === "vanilla_rag")?.needs).toBe("llm");
  });

  it("shows a gallery pipeline's graph with loops and branches, and each tool's description", async () => {
    const g = await viewer.client.ok<{ source: string; inspection: Inspection }>("query", "pipelines.gallery", {
      workspaceId: ws,
      key: "ircot",
    });
    expect(g.inspection.ok).toBe(true);
    const nodes = g.inspection.graph!.nodes;
    const loop = nodes.find((n) => n.kind === "loop")!;
    const router = nodes.find((n) => n.kind === "branch")!;
    expect(loop.label).toBe("loop ×3");
    expect(router.label).toBe("router.ircot_check_end");
    const edges = g.inspection.graph!.edges;
    expect(edges.some((e) => e.target === loop.id && e.kind === "repeat")).toBe(true);
    expect(edges.filter((e) => e.source === router.id && e.kind === "case").map((e) => e.label)).toContain(
      "incomplete",
    );
    // An empty state goes straight on: `complete: []` leads back to the loop.
    expect(edges.some((e) => e.source === router.id && e.target === loop.id && e.label?.startsWith("complete"))).toBe(
      true,
    );
    const search = nodes.find((n) => n.label === "retriever.bm25_search")!;
    expect(search.inputs).toEqual([
      { name: "query_list", from: "q_ls" },
      { name: "top_k", from: "$top_k" },
    ]);
    expect(g.inspection.tools["retriever.bm25_search"]?.doc).toMatch(/BM25/);
  });

  it("refuses an unknown gallery entry and strangers", async () => {
    const r = await viewer.client.query("pipelines.gallery", { workspaceId: ws, key: "nope" });
    expect(r.status).toBe(404);
    const anon = await new Client(server.url).query("pipelines.list", { workspaceId: ws });
    expect(anon.status).toBe(401);
  });
});

describe("validation as you type", () => {
  it("points each problem at its line and column", async () => {
    const source = [
      "servers:",
      "  benchmark: servers/benchmark",
      "  retriever: servers/retriever",
      "pipeline:",
      "  - benchmark.get_data",
      "  - retriever.bm25_serch",
      "",
    ].join("\n");
    const r = await validate(source);
    expect(r.ok).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ line: 6, col: 5, severity: "error", code: "unknown_tool" });
    expect(r.diagnostics[0]!.message).toContain("bm25_serch");
  });

  it("reports broken YAML at its line, and external servers as unknown", async () => {
    const broken = await validate("servers:\n  a: servers/benchmark\npipeline:\n  - a.get_data\n   - x: [\n");
    expect(broken.ok).toBe(false);
    expect(broken.diagnostics[0]).toMatchObject({ code: "yaml", line: expect.any(Number) });
    expect(broken.diagnostics[0]!.line).toBeGreaterThanOrEqual(4);
    const external = await validate("servers:\n  x: stdio:rm -rf /\npipeline:\n  - x.boom\n");
    expect(external.diagnostics[0]).toMatchObject({ code: "unknown_server", line: 2, col: 6 });
  });
});

describe("workspace pipelines", () => {
  let uid: string;

  it("forks a gallery pipeline; viewers may not", async () => {
    expect((await viewer.client.mutate("pipelines.fork", { workspaceId: ws, key: "bm25_search" })).status).toBe(403);
    const forked = await member.client.ok<{ uid: string; name: string; valid: boolean }>("mutate", "pipelines.fork", {
      workspaceId: ws,
      key: "bm25_search",
    });
    expect(forked).toMatchObject({ name: "bm25_search", valid: true });
    uid = forked.uid;
    const again = await member.client.ok<{ name: string }>("mutate", "pipelines.fork", {
      workspaceId: ws,
      key: "bm25_search",
    });
    expect(again.name).toBe("bm25_search_2");
  });

  it("masks secret parameters: never sent back, kept when the mask is sent", async () => {
    const p = await member.client.ok<{ parameters: Record<string, Record<string, unknown>>; version: number }>(
      "query",
      "pipelines.get",
      { uid },
    );
    const parameters = structuredClone(p.parameters);
    (parameters.retriever!.backend_configs as { openai: { api_key: string } }).openai.api_key = "sk-canary-123";
    const pipeline = await member.client.ok<{ source: string }>("query", "pipelines.get", { uid });
    await member.client.ok("mutate", "pipelines.save", { uid, source: pipeline.source, parameters });
    const after = await viewer.client.query("pipelines.get", { uid });
    expect(JSON.stringify(after.body)).not.toContain("sk-canary-123");
    const field = (after.data as { inspection: Inspection }).inspection.fields.find(
      (f) => f.path.join(".") === "backend_configs.openai.api_key",
    )!;
    expect(field).toMatchObject({ secret: true, set: true, value: SECRET_MASK });
    // Sending the parameters back as read (the mask) keeps the key.
    const masked = (after.data as { parameters: Record<string, Record<string, unknown>> }).parameters;
    expect((masked.retriever!.backend_configs as { openai: { api_key: string } }).openai.api_key).toBe(SECRET_MASK);
    await member.client.ok("mutate", "pipelines.save", { uid, source: pipeline.source, parameters: masked });
    const kept = await viewer.client.ok<{ inspection: Inspection }>("query", "pipelines.get", { uid });
    expect(kept.inspection.fields.find((f) => f.path.join(".") === "backend_configs.openai.api_key")?.set).toBe(true);
  });

  it("saves invalid YAML as a draft, lists versions and diffs two of them", async () => {
    const p = await member.client.ok<{ source: string; version: number }>("query", "pipelines.get", { uid });
    const broken = p.source.replace("retriever.bm25_search", "retriever.bm25_serch");
    const saved = await member.client.ok<{ version: number; valid: boolean; errors: number }>(
      "mutate",
      "pipelines.save",
      { uid, source: broken, message: "typo" },
    );
    expect(saved).toMatchObject({ version: p.version + 1, valid: false, errors: 1 });
    const run = await member.client.mutate("pipelines.startRun", { target: { uid }, dataset: { kind: "sample" } });
    expect(run.status).toBe(400);
    expect(run.error?.message).toMatch(/cannot run: bm25_search\.yaml:\d+:\d+: .*bm25_serch/);

    const versions = await viewer.client.ok<{ version: number; valid: boolean; message: string | null }[]>(
      "query",
      "pipelines.versions",
      { uid },
    );
    expect(versions[0]).toMatchObject({ version: saved.version, valid: false, message: "typo" });
    const diff = await viewer.client.ok<{
      source: { lines: { kind: string; text: string }[]; added: number; removed: number };
    }>("query", "pipelines.diff", { uid, from: p.version, to: saved.version });
    expect(diff.source).toMatchObject({ added: 1, removed: 1 });
    expect(diff.source.lines.filter((l) => l.kind !== "same").map((l) => `${l.kind} ${l.text.trim()}`)).toEqual([
      "del - retriever.bm25_search",
      "add - retriever.bm25_serch",
    ]);
    // Fixed again: a new valid version.
    const fixed = await member.client.ok<{ valid: boolean }>("mutate", "pipelines.save", { uid, source: p.source });
    expect(fixed.valid).toBe(true);
  });

  it("refuses file parameters that leave the run's folder", async () => {
    const p = await member.client.ok<{ source: string; parameters: Record<string, Record<string, unknown>> }>(
      "query",
      "pipelines.get",
      { uid },
    );
    const parameters = structuredClone(p.parameters);
    parameters.retriever!.corpus_path = "../../../etc/passwd";
    await member.client.ok("mutate", "pipelines.save", { uid, source: p.source, parameters });
    const r = await member.client.mutate("pipelines.startRun", { target: { uid }, dataset: { kind: "sample" } });
    expect(r.status).toBe(400);
    expect(r.error?.message).toContain("retriever.corpus_path must be a path inside the run's folder");
    await member.client.ok("mutate", "pipelines.save", { uid, source: p.source, parameters: p.parameters });
  });

  it("runs on the sample: the room carries the steps and sources, the run keeps its parameters", async () => {
    expect(
      (await viewer.client.mutate("pipelines.startRun", { target: { uid }, dataset: { kind: "sample" } })).status,
    ).toBe(403);
    const started = await member.client.ok<{ uid: string; room: string }>("mutate", "pipelines.startRun", {
      target: { uid },
      dataset: { kind: "sample" },
    });
    expect(started.room).toBe(runRoom(started.uid));
    const run = await finished(started.uid);
    expect(run).toMatchObject({ status: "completed", error: null, steps: 4, dataset: { kind: "sample" } });
    expect(run.params.retriever?.top_k).toBe(3);
    // The sealed key was used but is not kept with the run.
    expect(JSON.stringify(run.params)).not.toContain("sk-canary-123");
    const history = await server.services.events.history(runRoom(started.uid));
    const types = history.map((e) => e.type);
    expect(types.filter((t) => t === "step_start")).toHaveLength(4);
    expect(types).toContain("sources");
    expect(types[types.length - 1]).toBe("final");

    const list = await viewer.client.ok<Run[]>("query", "pipelines.runs", { workspaceId: ws, pipelineUid: uid });
    expect(list[0]).toMatchObject({ uid: started.uid, status: "completed", pipelineVersion: expect.any(Number) });
    const c = await viewer.client.ok<{
      count: number;
      index: number;
      steps: { step: string; values: Record<string, unknown> }[];
    }>("query", "pipelines.runCase", { uid: started.uid, case: 2 });
    expect(c.count).toBe(5);
    expect(c.index).toBe(2);
    expect(c.steps[0]).toMatchObject({
      step: "benchmark.get_data",
      values: { memory_q_ls: expect.stringContaining("?") },
    });
    // The run's scratch folder is removed once it ends; its memory file (the cases above) is kept.
    const folder = path.join(runsRoot(server.db.config.dataDir), started.uid);
    for (let i = 0; i < 50 && existsSync(folder); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(folder)).toBe(false);
    const again = await viewer.client.ok<{ count: number }>("query", "pipelines.runCase", {
      uid: started.uid,
      case: 1,
    });
    expect(again.count).toBe(5);
  });

  it("runs one chat question, and an uploaded .jsonl (the first bad line named)", async () => {
    const chat = await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { uid },
      dataset: { kind: "chat", question: "Who discovered penicillin?" },
    });
    const chatRun = await finished(chat.uid);
    expect(chatRun).toMatchObject({
      status: "completed",
      dataset: { kind: "chat", question: "Who discovered penicillin?" },
    });
    const c = await member.client.ok<{ count: number; steps: { values: Record<string, unknown> }[] }>(
      "query",
      "pipelines.runCase",
      { uid: chat.uid },
    );
    expect(c.count).toBe(1);
    expect(JSON.stringify(c.steps[c.steps.length - 1]!.values)).toContain("Penicillin");

    const bad = await member.client.mutate("pipelines.startRun", {
      target: { uid },
      dataset: { kind: "upload", name: "mine.jsonl", text: '{"question": "a"}\n{"question": \n' },
    });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe("Line 2 of mine.jsonl is not JSON: each line of a .jsonl file is one JSON object.");
    const good = await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { uid },
      dataset: {
        kind: "upload",
        name: "mine.jsonl",
        text: '{"question": "Where is the Eiffel Tower?", "golden_answers": ["Paris"]}\n',
      },
    });
    expect(await finished(good.uid)).toMatchObject({
      status: "completed",
      dataset: { kind: "upload", name: "mine.jsonl", items: 1 },
    });
  });

  it("runs a gallery pipeline that evaluates and shows its evaluation table", async () => {
    const started = await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { workspaceId: ws, key: "eval_trec" },
      dataset: { kind: "sample" },
    });
    const run = await finished(started.uid, viewer);
    expect(run.status).toBe("completed");
    expect(run.evaluation[0]?.step).toBe("evaluation.evaluate_trec");
    expect(run.evaluation[0]?.rows).toContainEqual({ metric: "mrr", mean: 1 });
    const list = await viewer.client.ok<{
      gallery: { key: string; lastRun: { uid: string; status: string } | null }[];
    }>("query", "pipelines.list", { workspaceId: ws });
    expect(list.gallery.find((g) => g.key === "eval_trec")?.lastRun).toMatchObject({
      uid: started.uid,
      status: "completed",
    });
  });

  it("imports YAML (an invalid one as a draft) and deletes a pipeline", async () => {
    const created = await member.client.ok<{ uid: string; valid: boolean; errors: number }>(
      "mutate",
      "pipelines.create",
      {
        workspaceId: ws,
        name: "hello",
        source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.gret\n",
      },
    );
    expect(created).toMatchObject({ valid: false, errors: 1 });
    const dup = await member.client.mutate("pipelines.create", { workspaceId: ws, name: "hello", source: "x: 1\n" });
    expect(dup.status).toBe(409);
    const badName = await member.client.mutate("pipelines.create", { workspaceId: ws, name: "../x", source: "x: 1\n" });
    expect(badName.status).toBe(400);
    await member.client.ok("mutate", "pipelines.delete", { uid: created.uid });
    expect((await viewer.client.query("pipelines.get", { uid: created.uid })).status).toBe(404);
  });

  it("cancels only a running run", async () => {
    const started = await member.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { uid },
      dataset: { kind: "sample" },
    });
    expect((await viewer.client.mutate("pipelines.cancelRun", { uid: started.uid })).status).toBe(403);
    await finished(started.uid);
    const again = await member.client.mutate("pipelines.cancelRun", { uid: started.uid });
    expect(again.status).toBe(409);
    expect(again.error?.message).toMatch(/only a running run can be cancelled/);
  });
});
