/**
 * Test-only pipeline servers (no model, no index) and a temp-directory helper, shared by the engine
 * tests, the conformance tests and the benchmark. `toy` transforms batches of strings; `route`
 * labels items; every call is counted so tests can assert what ran.
 */
import { chmodSync, cpSync, mkdirSync, readdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ultraragRoot } from "../dsl/test-support.ts";
import { defineServer, listArg, ToolError, type BuiltinFactory } from "../servers/define.ts";

export const calls: string[] = [];
const str = (v: unknown) => String(v);
const map = (args: Record<string, unknown>, key: string, fn: (s: string) => string) =>
  listArg(args, key, `toy`).map((v) => fn(str(v)));

export const toy = defineServer({
  name: "toy",
  defaults: { n: 3, prefix: ">" },
  tools: {
    seed: {
      params: ["n"],
      output: "n->q_ls,gt_ls",
      run: ({ n }) => {
        calls.push("seed");
        const count = Number(n);
        return {
          q_ls: Array.from({ length: count }, (_, i) => `q${i}`),
          gt_ls: Array.from({ length: count }, (_, i) => [`g${i}`]),
        };
      },
    },
    echo: {
      params: ["q_ls"],
      output: "q_ls->ans_ls",
      run: (a) => (calls.push("echo"), { ans_ls: map(a, "q_ls", (s) => `${s}!`) }),
    },
    shout: {
      params: ["q_ls"],
      output: "q_ls->ans_ls",
      run: (a) => (calls.push("shout"), { ans_ls: map(a, "q_ls", (s) => s.toUpperCase()) }),
    },
    tag: {
      params: ["ans_ls", "prefix"],
      output: "ans_ls,prefix->ans_ls",
      run: (a) => (calls.push("tag"), { ans_ls: map(a, "ans_ls", (s) => `${str(a.prefix)}${s}`) }),
    },
    step_up: {
      params: ["ans_ls"],
      output: "ans_ls->ans_ls",
      run: (a) => (calls.push("step_up"), { ans_ls: map(a, "ans_ls", (s) => `${s}+`) }),
    },
    mark: {
      params: ["ans_ls"],
      output: "ans_ls->side",
      run: (a) => (calls.push("mark"), { side: map(a, "ans_ls", (s) => `side:${s}`) }),
    },
    use_side: { params: ["side"], output: "side->None", run: () => (calls.push("use_side"), {}) },
    pair: {
      params: ["a", "b"],
      output: "q_ls,ans_ls->pair_ls",
      run: (args) => {
        calls.push("pair");
        const a = listArg(args, "a", "toy.pair");
        const b = listArg(args, "b", "toy.pair");
        if (a.length !== b.length) throw new ToolError(`toy.pair: ${a.length} vs ${b.length} items`);
        return { pair_ls: a.map((x, i) => `${str(x)}|${str(b[i])}`) };
      },
    },
    count: { params: [], run: () => (calls.push("count"), {}) },
    nap: { params: [], run: async () => (calls.push("nap"), await new Promise((r) => setTimeout(r, 5)), {}) },
    history: {
      params: ["past"],
      output: "memory_ans_ls->rounds",
      run: (a) => (calls.push("history"), { rounds: listArg(a, "past", "toy.history").length }),
    },
    missing: { params: ["q_ls"], output: "q_ls->nothing", run: () => (calls.push("missing"), { other: 1 }) },
    boom: {
      params: ["q_ls"],
      output: "q_ls->ans_ls",
      run: () => {
        calls.push("boom");
        throw new ToolError("the toy exploded");
      },
    },
    short: { params: ["q_ls"], output: "q_ls->ans_ls", run: () => (calls.push("short"), { ans_ls: ["only one"] }) },
    stream: {
      params: ["q_ls"],
      output: "q_ls->ans_ls",
      run: (a, ctx) => {
        calls.push("stream");
        for (const t of ["Hel", "", "lo"]) ctx.onToken?.(t);
        // Two model requests' usage: the step's step_end carries their sum.
        ctx.onUsage?.({ input: 10, output: 2 });
        ctx.onUsage?.({ input: 5, output: 1 });
        return { ans_ls: map(a, "q_ls", () => "Hello") };
      },
    },
    passages: {
      params: ["q_ls"],
      output: "q_ls->ret_psg",
      run: (a) => (
        calls.push("passages"),
        { ret_psg: map(a, "q_ls", () => "").map((_, i) => [`doc A${i}\nbody`, `[7] cited`, `doc A${i}\nbody`]) }
      ),
    },
  },
});

export const route = defineServer({
  name: "route",
  defaults: {},
  tools: {
    /** `"a3"` needs three `+` before it is done. */
    plus_check: {
      params: ["ans_ls"],
      output: "ans_ls",
      run: (a) => {
        calls.push("plus_check");
        return {
          ans_ls: listArg(a, "ans_ls", "route.plus_check").map((v) => ({
            data: v,
            state: (str(v).match(/\+/g)?.length ?? 0) >= Number(/\d+/.exec(str(v))?.[0] ?? 0) ? "done" : "more",
          })),
        };
      },
    },
    three: {
      params: ["q_ls"],
      output: "q_ls",
      run: (a) => (
        calls.push("three"),
        { q_ls: listArg(a, "q_ls", "route.three").map((v, i) => ({ data: v, state: ["a", "b", "c"][i % 3]! })) }
      ),
    },
    bogus: {
      params: ["q_ls"],
      output: "q_ls",
      run: (a) => (
        calls.push("bogus"),
        { q_ls: listArg(a, "q_ls", "route.bogus").map((v) => ({ data: v, state: "nowhere" })) }
      ),
    },
  },
});

export const TEST_BUILTINS: Record<string, BuiltinFactory> = { toy, route };

/** A temp directory with `files` written into it; remove with the returned cleanup. */
export function tempDir(files: Record<string, string> = {}): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "argus-pipe-"));
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A writable copy of ../shared/ultrarag (read-only in CI), as the conformance checks require. */
export function ultraragCopy(): { dir: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir();
  cpSync(ultraragRoot, dir, { recursive: true });
  makeWritable(dir);
  return { dir, cleanup };
}

/** The shared copy may be read-only; build and run overwrite files in it. */
function makeWritable(dir: string) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    chmodSync(full, entry.isDirectory() ? 0o755 : 0o644);
    if (entry.isDirectory()) makeWritable(full);
  }
}
