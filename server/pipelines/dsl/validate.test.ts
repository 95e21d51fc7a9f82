import { describe, expect, it } from "vitest";
import {
  aliasParameters,
  catalogFromRecord,
  checkPipeline,
  checkPipelineOrThrow,
  formatDiagnostic,
  parsePipeline,
  PipelineInvalidError,
  validatePipeline,
} from "./index.ts";
import { DomainError } from "../../errors.ts";

// A small hand-written catalog: enough servers to exercise every validation rule.
const catalog = catalogFromRecord({
  "servers/data": {
    tools: { load: { input: { spec: "$spec" }, output: ["q_ls", "gt_ls"] } },
    parameters: { spec: "x", top_k: 3 },
  },
  "servers/retriever": {
    tools: { search: { input: { query_list: "q_ls", top_k: "$top_k" }, output: ["ret_psg"] }, init: { input: {} } },
    parameters: { top_k: 5 },
  },
  "servers/prompt": {
    prompts: { qa: { input: { q_ls: "q_ls", template: "$template" }, output: ["prompt_ls"] } },
    parameters: { template: "t.jinja" },
  },
  "servers/llm": {
    tools: {
      generate: { input: { prompt_ls: "prompt_ls" }, output: ["ans_ls"] },
      history: { input: { past: "memory_ans_ls" } },
    },
  },
  "servers/router": { tools: { check: { input: { ans_ls: "ans_ls" }, output: ["ans_ls"] } } },
  "servers/custom": { tools: { merge: { input: { a: "dense_psg", b: "sparse_psg" }, output: ["ret_psg"] } } },
});

const HEADER = `servers:
  data: servers/data
  dense: servers/retriever
  bm25: servers/retriever
  prompt: servers/prompt
  llm: servers/llm
  router: servers/router
  custom: servers/custom
pipeline:
`;
const check = (steps: string, extra: Partial<Parameters<typeof checkPipeline>[1]> = {}) =>
  checkPipeline(HEADER + steps, { file: "p.yaml", catalog, ...extra });
const lines = (steps: string, extra = {}) => check(steps, extra).diagnostics.map(formatDiagnostic);

describe("validatePipeline", () => {
  it("accepts a valid pipeline with aliases sharing a server, remapping, loop and branch", () => {
    expect(
      lines(`- data.load
- dense.search:
    output: {ret_psg: dense_psg}
- bm25.search:
    input: {top_k: $top_k}
    output: {ret_psg: sparse_psg}
- custom.merge
- prompt.qa
- llm.generate
- loop:
    times: 3
    steps:
    - branch:
        router: [router.check]
        branches:
          incomplete: [prompt.qa, llm.generate, llm.history]
          complete: []
`),
    ).toEqual([]);
  });

  it("reports an unknown server path at the servers: entry", () => {
    expect(
      checkPipeline("servers:\n  x: servers/retrieverr\npipeline: [x.search]\n", {
        file: "p.yaml",
        catalog,
      }).diagnostics.map(formatDiagnostic),
    ).toEqual(["p.yaml:2:6: Unknown server `servers/retrieverr` for alias `x` (did you mean `servers/retriever`?)"]);
  });

  it("reports an unknown alias", () => {
    expect(lines("- retriever.search\n")).toEqual([
      "p.yaml:10:3: Unknown server alias `retriever` in step retriever.search (declared aliases: `data`, `dense`, `bm25`, `prompt`, `llm`, `router`, `custom`; aliases are declared under `servers:`)",
    ]);
    expect(lines("- dens.init\n")[0]).toContain("(did you mean `dense`?;");
  });

  it("reports an unknown tool with a suggestion", () => {
    expect(lines("- dense.serch\n")).toEqual([
      "p.yaml:10:3: Server alias `dense` has no tool `serch` (did you mean `search`?)",
    ]);
    expect(lines("- dense.zzzzzzzz\n")).toEqual([
      "p.yaml:10:3: Server alias `dense` has no tool `zzzzzzzz` (its tools: `search`, `init`)",
    ]);
  });

  it("reports a prompt called through an alias other than `prompt`", () => {
    const r = checkPipeline("servers:\n  p: servers/prompt\npipeline: [p.qa]\n", { file: "p.yaml", catalog });
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["unknown_tool", "`qa` is a prompt, but alias `p` calls tools"],
    ]);
  });

  it("reports a variable used before it is produced, at the step or at the input: value", () => {
    expect(lines("- dense.search\n")).toEqual([
      "p.yaml:10:3: Variable q_ls cannot be found from pipeline before dense.search step (there are no variables available here; `q_ls` is the default for input `query_list` — remap it with `input: {query_list: <variable>}`)",
    ]);
    expect(lines("- data.load\n- dense.search:\n    input: {query_list: q_lss}\n")).toEqual([
      "p.yaml:12:25: Variable q_lss cannot be found from pipeline before dense.search step (did you mean `q_ls`?)",
    ]);
  });

  it("follows DFS order: inside a loop a later step's output does not count", () => {
    const r = check("- data.load\n- loop:\n    times: 2\n    steps: [llm.generate, prompt.qa]\n");
    expect(r.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([
      "13:13 Variable prompt_ls cannot be found from pipeline before llm.generate step",
    ]);
  });

  it("makes branch outputs visible after the branch and to later states", () => {
    const steps = `- data.load
- prompt.qa
- llm.generate
- branch:
    router: [router.check]
    branches:
      a: [dense.search]
      b: [{custom.merge: {input: {a: ret_psg, b: ret_psg}}}]
- custom.merge: {input: {a: ret_psg, b: ret_psg}}
`;
    expect(lines(steps)).toEqual([]);
  });

  it("allows memory_ and mem_ inputs without a producer", () => {
    expect(lines("- llm.history\n- llm.history: {input: {past: mem_anything}}\n")).toEqual([]);
  });

  it("declares renamed outputs and not the original names", () => {
    expect(lines("- data.load: {output: {q_ls: questions}}\n- dense.search\n")[0]).toContain(
      "Variable q_ls cannot be found",
    );
    expect(
      lines("- data.load: {output: {q_ls: questions}}\n- dense.search: {input: {query_list: questions}}\n"),
    ).toEqual([]);
  });

  it("reports a missing $param against the alias's parameters", () => {
    expect(lines("- data.load\n- dense.search: {input: {top_k: $topk}}\n")).toEqual([
      "p.yaml:11:33: Variable topk not found in dense parameter.yaml (step dense.search) (add `topk:` to the `dense:` section of the parameter file; did you mean `top_k`?)",
    ]);
  });

  it("uses a parameter file section as the alias's whole parameter set (no deep merge)", () => {
    const pipeline = parsePipeline(HEADER + "- data.load\n- dense.search\n- bm25.search\n").pipeline!;
    const parameters = aliasParameters(pipeline, catalog, { dense: { unrelated: 1 } });
    expect(parameters.bm25).toEqual({ top_k: 5 });
    const ds = validatePipeline(pipeline, { catalog, parameters });
    expect(ds.map((d) => `${d.line} ${d.code} ${d.message}`)).toEqual([
      "11 missing_param Variable top_k not found in dense parameter.yaml (step dense.search)",
    ]);
    expect(aliasParameters(pipeline, catalog, { data: null }).data).toEqual({});
  });

  it("warns about input:/output: keys the tool does not declare, and still declares the target", () => {
    const r = check(
      "- data.load: {input: {nope: memory_x}, output: {extra: got}}\n- dense.search: {input: {query_list: got}}\n",
    );
    expect(r.ok).toBe(true);
    expect(r.diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual([
      "warning unknown_input",
      "warning unknown_output",
    ]);
  });

  it("does not cascade: an unknown tool's explicit outputs are still declared", () => {
    expect(lines("- data.nope: {output: {x: y}}\n- dense.search: {input: {query_list: y}}\n")).toHaveLength(1);
  });

  it("checks the router and the steps before it", () => {
    const r = check("- branch:\n    router: [dense.search, router.check]\n    branches: {s: []}\n");
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "Variable q_ls cannot be found from pipeline before dense.search step",
      "Variable ans_ls cannot be found from pipeline before router.check step",
    ]);
  });

  it("skips validation when parsing failed, to avoid cascades", () => {
    const r = check("- loop: {times: x, steps: [data.load]}\n- dense.search\n");
    expect(r.diagnostics.map((d) => d.code)).toEqual(["malformed_loop"]);
  });
});

describe("checkPipelineOrThrow", () => {
  it("returns the pipeline when valid", () => {
    expect(checkPipelineOrThrow(HEADER + "- data.load\n", { catalog }).steps).toHaveLength(1);
  });

  it("throws an invalid DomainError listing every error", () => {
    let caught: unknown;
    try {
      checkPipelineOrThrow(HEADER + "- dense.search\n- llm.generate\n", { file: "p.yaml", catalog });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PipelineInvalidError);
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).kind).toBe("invalid");
    expect((caught as Error).message.split("\n").map((l) => l.slice(0, 12))).toEqual(["p.yaml:10:3:", "p.yaml:11:3:"]);
  });
});

describe("catalogFromRecord", () => {
  it("validates the description and normalises paths", () => {
    const c = catalogFromRecord({ "./servers/x/": { tools: { t: { input: { a: "b" } } } } });
    expect(c.lookup("servers/x")?.tools.t).toEqual({ input: { a: "b" }, output: [] });
    expect(() => catalogFromRecord({ "servers/x": { tools: { t: { input: { a: 1 } } } } })).toThrow();
  });
});
