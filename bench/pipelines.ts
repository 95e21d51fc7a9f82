/**
 * Pipeline engine overhead (issue 7 targets): per-step overhead with an in-process trivial tool
 * (p50 ≤ 0.2 ms) and a 1,000-item batch through a 10-step pipeline (≤ 1 s), each next to a baseline
 * measured in the same run — the same trivial functions called directly. Plus the per-call overhead
 * of an external MCP server over stdio next to in-process (measured by bench/mcp-overhead.ts), and
 * vanilla RAG over a 100k-passage corpus (bench/pipelines-rag.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runPipeline } from "../server/pipelines/engine/run.ts";
import { defineServer, listArg } from "../server/pipelines/servers/define.ts";
import { summarize } from "./_stats.ts";

/** The trivial tool: one string operation per item. */
const bump = (xs: unknown[]) => xs.map((x) => `${String(x)}.`);
const bench = defineServer({
  name: "bench",
  defaults: { n: 1 },
  tools: {
    seed: {
      params: ["n"],
      output: "n->q_ls",
      run: ({ n }) => ({ q_ls: Array.from({ length: Number(n) }, (_, i) => `q${i}`) }),
    },
    bump: { params: ["q_ls"], output: "q_ls->q_ls", run: (a) => ({ q_ls: bump(listArg(a, "q_ls", "bench.bump")) }) },
  },
});

const pipeline = (steps: number) =>
  `servers:\n  bench: servers/bench\npipeline:\n- bench.seed\n${"- bench.bump\n".repeat(steps)}`;

async function timeRun(dir: string, file: string, n: number, writeMemory: boolean): Promise<number> {
  writeFileSync(path.join(dir, "parameter", `${file.replace(".yaml", "")}_parameter.yaml`), `bench: {n: ${n}}\n`);
  const t = performance.now();
  await runPipeline(file, { cwd: dir, builtins: { bench }, writeMemory });
  return performance.now() - t;
}

export default async function pipelines() {
  const dir = mkdtempSync(path.join(tmpdir(), "argus-bench-pipe-"));
  try {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.join(dir, "parameter"));
    const LONG = 200;
    writeFileSync(path.join(dir, "short.yaml"), pipeline(0));
    writeFileSync(path.join(dir, "long.yaml"), pipeline(LONG));
    writeFileSync(path.join(dir, "batch.yaml"), pipeline(10));

    // Per step: (run with LONG steps − run with none) / LONG, 1 item, no memory file; baseline = the bare call.
    for (let i = 0; i < 5; i++) await timeRun(dir, "long.yaml", 1, false);
    const perStep: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < 40; i++) {
      const long = await timeRun(dir, "long.yaml", 1, false);
      const short = await timeRun(dir, "short.yaml", 1, false);
      perStep.push((long - short) / LONG);
      let xs: unknown[] = ["q0"];
      const t = performance.now();
      for (let s = 0; s < LONG; s++) xs = bump(xs);
      direct.push((performance.now() - t) / LONG);
    }

    // 1,000 items × 10 steps, memory file included (as a real run writes it); baseline = the same 10 calls.
    for (let i = 0; i < 3; i++) await timeRun(dir, "batch.yaml", 1000, true);
    const batch: number[] = [];
    const batchDirect: number[] = [];
    for (let i = 0; i < 15; i++) {
      batch.push(await timeRun(dir, "batch.yaml", 1000, true));
      const t = performance.now();
      let xs: unknown[] = Array.from({ length: 1000 }, (_, k) => `q${k}`);
      for (let s = 0; s < 10; s++) xs = bump(xs);
      batchDirect.push(performance.now() - t);
    }

    // Slot for the MCP helper's measurement (bench/mcp-overhead.ts); reported as unavailable if it fails.
    let mcp: unknown;
    try {
      const { measureMcpOverhead } = await import("./mcp-overhead.ts");
      mcp = await measureMcpOverhead(200);
    } catch (err) {
      mcp = { unavailable: err instanceof Error ? err.message : String(err) };
    }

    // Vanilla RAG at 100k passages / 1,000 questions (bench/pipelines-rag.ts).
    let rag: unknown;
    try {
      const { measureRag } = await import("./pipelines-rag.ts");
      rag = await measureRag();
    } catch (err) {
      rag = { unavailable: err instanceof Error ? err.message : String(err) };
    }

    const step = summarize(perStep);
    const whole = summarize(batch);
    return {
      unit: "ms",
      "engine overhead per step (in-process trivial tool, 1 item)": step,
      "baseline: the same tool function called directly, per call": summarize(direct),
      perStepTargetP50Ms: 0.2,
      perStepWithinTarget: step.p50 <= 0.2,
      "1,000 items through 10 trivial steps (parse, validate, run, memory file)": whole,
      "baseline: the same 10 functions on 1,000 items, called directly": summarize(batchDirect),
      batchTargetMs: 1000,
      batchWithinTarget: whole.p50 <= 1000,
      "external MCP stdio per-call overhead (bench/mcp-overhead.ts)": mcp,
      "vanilla RAG, BM25 and hash-dense retrieval, scripted model (bench/pipelines-rag.ts)": rag,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
