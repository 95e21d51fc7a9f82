/**
 * Public conformance checks P1 and P2 (ULTRARAG-SPEC §9.1), run through the CLI in a writable copy of
 * ../shared/ultrarag, asserting what §9.1 lists. The only deliberate difference: `path:` in a built
 * server file names the Argus server (`argus:servers/<name>`), see docs/pipelines.md.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runPipelineCli } from "../cli/pipeline.ts";
import { ultraragCopy } from "./engine/test-support.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = ultraragCopy()));
afterEach(() => cleanup());

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await runPipelineCli(argv, { cwd: dir, out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}
const yaml = (rel: string) => parse(readFileSync(path.join(dir, rel), "utf8")) as Record<string, unknown>;
const outputs = () => (existsSync(path.join(dir, "output")) ? readdirSync(path.join(dir, "output")).sort() : []);
const readJson = (rel: string) => JSON.parse(readFileSync(path.join(dir, rel), "utf8")) as unknown;

describe("P1 — minimal build/run (sayhello)", () => {
  it("1. build writes the committed server file (path names the Argus server) and parameter file", async () => {
    const committed = yaml("examples/experiments/server/sayhello_server.yaml") as { sayhello: Record<string, unknown> };
    rmSync(path.join(dir, "examples/experiments/server"), { recursive: true });
    rmSync(path.join(dir, "examples/experiments/parameter"), { recursive: true });
    const r = await cli("build", "examples/experiments/sayhello.yaml");
    expect(r).toMatchObject({ code: 0 });
    expect(yaml("examples/experiments/server/sayhello_server.yaml")).toEqual({
      sayhello: { ...committed.sayhello, path: "argus:servers/sayhello" },
    });
    expect(yaml("examples/experiments/parameter/sayhello_parameter.yaml")).toEqual({
      sayhello: { name: "UltraRAG v3" },
    });
  });

  it("2. run writes exactly one memory__sayhello_<ts>.json with the greeting", async () => {
    expect((await cli("build", "examples/experiments/sayhello.yaml")).code).toBe(0);
    const r = await cli("run", "examples/experiments/sayhello.yaml");
    expect(r.code).toBe(0);
    const files = outputs();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^memory__sayhello_\d{8}_\d{6}\.json$/);
    expect(readJson(`output/${files[0]}`)).toEqual([
      { step: "sayhello.greet", memory: { memory_msg: "Hello, UltraRAG v3!" } },
    ]);
    expect(r.out).toContain(`memory file: output/${files[0]}`);
  });

  it("3. --param: a temp file, a path relative to the pipeline directory, and a missing file", async () => {
    await cli("build", "examples/experiments/sayhello.yaml");
    const tmp = path.join(dir, "..", `${path.basename(dir)}-p.yaml`);
    writeFileSync(tmp, "sayhello:\n  name: Ada\n");
    try {
      expect((await cli("run", "examples/experiments/sayhello.yaml", "--param", tmp)).code).toBe(0);
      const [first] = outputs();
      expect(readJson(`output/${first}`)).toEqual([{ step: "sayhello.greet", memory: { memory_msg: "Hello, Ada!" } }]);
    } finally {
      rmSync(tmp, { force: true });
    }
    expect(
      (await cli("run", "examples/experiments/sayhello.yaml", "--param", "parameter/sayhello_parameter.yaml")).code,
    ).toBe(0);
    expect(outputs()).toHaveLength(2);
    const missing = await cli("run", "examples/experiments/sayhello.yaml", "--param", "nope.yaml");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("[UltraRAG Error] Parameter file 'nope.yaml' does not exist");
    expect(outputs()).toHaveLength(2);
  });
});

describe("P2 — build artefacts and static validation", () => {
  it("1. build vanilla_rag writes exactly the used tools and their parameters", async () => {
    expect((await cli("build", "examples/experiments/vanilla_rag.yaml")).code).toBe(0);
    const servers = yaml("examples/experiments/server/vanilla_rag_server.yaml") as Record<
      string,
      Record<string, unknown>
    >;
    const $ = (names: string) => Object.fromEntries(names.split(",").map((n) => [n, `$${n}`]));
    const expected: Record<string, Record<string, unknown>> = {
      benchmark: { tools: { get_data: { input: { benchmark: "$benchmark" }, output: ["q_ls", "gt_ls"] } } },
      retriever: {
        tools: {
          retriever_init: {
            input: $(
              "model_name_or_path,backend_configs,batch_size,corpus_path,gpu_ids,is_multimodal,backend,index_backend,index_backend_configs,is_demo,collection_name",
            ),
          },
          retriever_search: {
            input: { query_list: "q_ls", ...$("top_k,query_instruction,collection_name") },
            output: ["ret_psg"],
          },
        },
      },
      generation: {
        tools: {
          generation_init: { input: $("backend_configs,sampling_params,extra_params,backend") },
          generate: { input: { prompt_ls: "prompt_ls", system_prompt: "$system_prompt" }, output: ["ans_ls"] },
        },
      },
      prompt: {
        prompts: {
          qa_rag_boxed: { input: { q_ls: "q_ls", ret_psg: "ret_psg", template: "$template" }, output: ["prompt_ls"] },
        },
      },
      custom: { tools: { output_extract_from_boxed: { input: { ans_ls: "ans_ls" }, output: ["pred_ls"] } } },
      evaluation: {
        tools: {
          evaluate: {
            input: { pred_ls: "pred_ls", gt_ls: "gt_ls", metrics: "$metrics", save_path: "$save_path" },
            output: ["eval_res"],
          },
        },
      },
    };
    expect(Object.keys(servers)).toEqual(Object.keys(expected));
    for (const [alias, section] of Object.entries(expected)) {
      expect(servers[alias]).toEqual({
        ...section,
        parameter: `servers/${alias}/parameter.yaml`,
        path: `argus:servers/${alias}`,
      });
    }
    const params = yaml("examples/experiments/parameter/vanilla_rag_parameter.yaml") as Record<
      string,
      Record<string, unknown>
    >;
    const keys: Record<string, string[]> = {
      benchmark: ["benchmark"],
      retriever: [
        "model_name_or_path",
        "backend_configs",
        "batch_size",
        "corpus_path",
        "gpu_ids",
        "is_multimodal",
        "backend",
        "index_backend",
        "index_backend_configs",
        "is_demo",
        "collection_name",
        "top_k",
        "query_instruction",
      ],
      generation: ["backend_configs", "sampling_params", "extra_params", "backend", "system_prompt"],
      prompt: ["template"],
      custom: [],
      evaluation: ["metrics", "save_path"],
    };
    expect(Object.keys(params)).toEqual(Object.keys(keys));
    for (const [alias, names] of Object.entries(keys)) {
      expect(Object.keys(params[alias]!)).toEqual(names);
      const defaults = yaml(`servers/${alias}/parameter.yaml`);
      for (const n of names) expect(params[alias]![n]).toEqual(defaults[n]);
    }
  });

  it("2. build then run rag_loop fails validation: message, exit code, no memory file", async () => {
    expect((await cli("build", "examples/experiments/rag_loop.yaml")).code).toBe(0);
    const r = await cli("run", "examples/experiments/rag_loop.yaml");
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("Variable gen_subq_template cannot be found from pipeline before prompt.gen_subq step");
    expect(r.err).toContain("examples/experiments/rag_loop.yaml:21:7");
    expect(outputs().filter((f) => /^memory_.*_rag_loop_/.test(f))).toEqual([]);
  });
});

describe("argus pipeline CLI", () => {
  it("uses exit code 2 for usage errors", async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli("frob")).code).toBe(2);
    expect((await cli("run")).code).toBe(2);
    expect((await cli("run", "x.yaml", "--log-level", "loud")).code).toBe(2);
    expect((await cli("run", "x.yaml", "--nope")).code).toBe(2);
  });

  it("lists pipelines and whether they are built", async () => {
    const r = await cli("list", "examples");
    expect(r.code).toBe(0);
    expect(r.out).toContain("examples/experiments/sayhello.yaml\tbuilt");
    expect(r.out).toContain("examples/experiments/search_r1.yaml\tnot built");
    expect(r.out).not.toContain("_parameter.yaml");
  });

  it("reports a failed step as a failed run (exit 1) naming the step and what to do", async () => {
    // vanilla_rag with the shipped parameters: no dense index was built yet.
    const r = await cli("run", "examples/experiments/vanilla_rag.yaml");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /Step retriever\.retriever_search failed: retriever\.retriever_search: no index at .*index\/index\.index; run retriever\.retriever_index first/,
    );
    expect(r.err).toContain("INFO benchmark.get_data");
    expect(outputs().filter((f) => f.includes("vanilla_rag"))).toEqual([]);
  });

  it("--log-level debug adds each step's result summary; warn hides the step lines", async () => {
    const debug = await cli("run", "examples/experiments/sayhello.yaml", "--log-level", "debug");
    expect(debug.err).toContain("DEBUG Output Keys: ['msg']");
    const quiet = await cli("run", "examples/experiments/sayhello.yaml", "--log-level", "warn");
    expect(quiet.err).toBe("");
  });
});
