import { describe, expect, it } from "vitest";
import { formatDiagnostic, parsePipeline, type Diagnostic } from "./index.ts";

const SERVERS = "servers:\n  a: servers/a\n  r: servers/router\n";
const parse = (body: string, opts = {}) => parsePipeline(SERVERS + body, { file: "p.yaml", ...opts });
/** Diagnostics as `line:col code` for compact assertions. */
const where = (ds: Diagnostic[]) =>
  ds.map((d) => `${d.line}:${d.col} ${d.severity === "warning" ? "warn " : ""}${d.code}`);

describe("step forms", () => {
  it("parses the string and dict tool forms with positions", () => {
    const { pipeline, diagnostics } = parse(`pipeline:
- a.one
- a.two:
    input:
      x: y
      p: $param
    output:
      out: renamed
`);
    expect(diagnostics).toEqual([]);
    expect(pipeline!.servers).toEqual([
      { alias: "a", path: "servers/a", aliasPos: { line: 2, col: 3 }, pathPos: { line: 2, col: 6 } },
      { alias: "r", path: "servers/router", aliasPos: { line: 3, col: 3 }, pathPos: { line: 3, col: 6 } },
    ]);
    expect(pipeline!.steps[0]).toEqual({
      kind: "tool",
      form: "string",
      alias: "a",
      tool: "one",
      pos: { line: 5, col: 3 },
      input: [],
      output: [],
    });
    expect(pipeline!.steps[1]).toMatchObject({
      kind: "tool",
      form: "dict",
      tool: "two",
      pos: { line: 6, col: 3 },
      input: [
        { key: "x", value: "y", keyPos: { line: 8, col: 7 }, valuePos: { line: 8, col: 10 } },
        { key: "p", value: "$param" },
      ],
      output: [{ key: "out", value: "renamed" }],
    });
  });

  it("parses loops and branches, including nesting both ways and pre-router steps", () => {
    const { pipeline, diagnostics } = parse(`pipeline:
- loop:
    times: 2
    steps:
    - branch:
        router: [a.prep, r.route1]
        branches:
          state1:
          - loop: {times: 1, steps: [a.inner]}
          state2: []
`);
    expect(diagnostics).toEqual([]);
    const loop = pipeline!.steps[0]!;
    expect(loop).toMatchObject({ kind: "loop", times: 2, pos: { line: 5, col: 3 } });
    const branch = loop.kind === "loop" ? loop.steps[0]! : undefined;
    expect(branch).toMatchObject({
      kind: "branch",
      key: "branch",
      pre: [{ alias: "a", tool: "prep" }],
      router: { alias: "r", tool: "route1" },
      branches: [
        { state: "state1", steps: [{ kind: "loop", times: 1, steps: [{ tool: "inner" }] }] },
        { state: "state2", steps: [] },
      ],
    });
  });

  it("accepts any key starting with `branch`, as UltraRAG does", () => {
    const { pipeline } = parse("pipeline:\n- branch2:\n    router: [r.route1]\n    branches: {state1: []}\n");
    expect(pipeline!.steps[0]).toMatchObject({ kind: "branch", key: "branch2" });
  });

  it("reads state labels as written (`yes:`, `1:`), since routers return strings", () => {
    const { pipeline } = parse(
      "pipeline:\n- branch:\n    router: [r.route1]\n    branches: {yes: [], 1: [], null: []}\n",
    );
    const b = pipeline!.steps[0]!;
    expect(b.kind === "branch" && b.branches.map((c) => c.state)).toEqual(["yes", "1", "null"]);
  });

  it("resolves ordinary YAML anchors and aliases", () => {
    const { pipeline, diagnostics } = parse("x: &io {input: {q: y}}\npipeline:\n- a.one: *io\n- a.two: *io\n");
    expect(diagnostics).toEqual([]);
    expect(pipeline!.steps.map((s) => s.kind === "tool" && s.input[0]?.value)).toEqual(["y", "y"]);
  });

  it("ignores unknown top-level keys (UltraRAG reads only servers and pipeline)", () => {
    expect(parse("others: 1\npipeline: [a.one]\n").diagnostics).toEqual([]);
  });
});

describe("malformed pipelines", () => {
  const cases: Array<[string, string, string[]]> = [
    ["unrecognised step key", "pipeline:\n- foo: 1\n", ["5:3 shape"]],
    ["number as a step", "pipeline:\n- 42\n", ["5:3 shape"]],
    ["tool ref with two dots", "pipeline:\n- a.b.c\n", ["5:3 bad_tool_ref"]],
    ["tool ref without a tool", "pipeline:\n- a.\n", ["5:3 bad_tool_ref"]],
    ["dict tool with a null body", "pipeline:\n- a.one:\n", ["5:3 shape"]],
    ["input value that is not a name", "pipeline:\n- a.one:\n    input: {k: 3}\n", ["6:16 shape"]],
    ["input that is a list", "pipeline:\n- a.one:\n    input: [x]\n", ["6:12 shape"]],
    ["unknown key in a tool step", "pipeline:\n- a.one:\n    inputs: {k: v}\n", ["6:5 warn ignored_key"]],
    ["second key of a step", "pipeline:\n- a.one: {}\n  a.two: {}\n", ["6:3 warn ignored_key"]],
    ["pipeline not a list", "pipeline: a.one\n", ["4:11 shape"]],
    ["loop body not a mapping", "pipeline:\n- loop: 3\n", ["5:9 malformed_loop"]],
    ["loop without times", "pipeline:\n- loop:\n    steps: [a.one]\n", ["5:3 malformed_loop"]],
    ["loop with null times", "pipeline:\n- loop:\n    times:\n    steps: [a.one]\n", ["6:5 malformed_loop"]],
    ["loop with fractional times", "pipeline:\n- loop: {times: 1.5, steps: [a.one]}\n", ["5:17 malformed_loop"]],
    ["loop with string times", "pipeline:\n- loop: {times: '3', steps: [a.one]}\n", ["5:17 malformed_loop"]],
    ["loop without steps", "pipeline:\n- loop: {times: 3}\n", ["5:3 malformed_loop"]],
    ["loop with zero times", "pipeline:\n- loop: {times: 0, steps: [a.one]}\n", ["5:17 warn malformed_loop"]],
    ["unknown loop key", "pipeline:\n- loop: {times: 1, steps: [], until: x}\n", ["5:31 warn ignored_key"]],
    ["branch without router", "pipeline:\n- branch:\n    branches: {s: []}\n", ["5:3 malformed_branch"]],
    [
      "branch with an empty router",
      "pipeline:\n- branch:\n    router: []\n    branches: {s: []}\n",
      ["6:13 malformed_branch"],
    ],
    [
      "router ending in a loop",
      "pipeline:\n- branch:\n    router: [{loop: {times: 1, steps: []}}]\n    branches: {s: []}\n",
      ["6:15 malformed_branch"],
    ],
    [
      "prompt as router",
      "servers2: x\npipeline:\n- branch:\n    router: [prompt.qa]\n    branches: {s: []}\n",
      ["7:14 malformed_branch"],
    ],
    ["branch without branches", "pipeline:\n- branch:\n    router: [r.route1]\n", ["5:3 malformed_branch"]],
    [
      "branch with empty branches",
      "pipeline:\n- branch:\n    router: [r.route1]\n    branches: {}\n",
      ["7:15 malformed_branch"],
    ],
    [
      "state that is null",
      "pipeline:\n- branch:\n    router: [r.route1]\n    branches:\n      done:\n",
      ["8:7 malformed_branch"],
    ],
    [
      "state with a slash",
      "pipeline:\n- branch:\n    router: [r.route1]\n    branches: {a/b: []}\n",
      ["7:16 malformed_branch"],
    ],
  ];
  it.each(cases)("%s", (_name, body, expected) => {
    expect(where(parse(body).diagnostics)).toEqual(expected);
  });

  it("names the ignored key of a loop or a branch and the two keys it reads", () => {
    const said = (body: string) =>
      parse(body)
        .diagnostics.filter((d) => d.code === "ignored_key")
        .map((d) => [d.message, d.hint]);
    expect(said("pipeline:\n- loop: {times: 1, steps: [a.one], until: x}\n")).toEqual([
      ["`until` is ignored in a loop", "a loop reads only `times:` and `steps:`"],
    ]);
    expect(said("pipeline:\n- branch:\n    router: [r.route1]\n    branches: {s: []}\n    when: x\n")).toEqual([
      ["`when` is ignored in a branch", "a branch reads only `router:` and `branches:`"],
    ]);
  });

  it("reports every malformed step in one pass", () => {
    expect(where(parse("pipeline:\n- foo: 1\n- a.b.c\n- loop: {steps: []}\n").diagnostics)).toEqual([
      "5:3 shape",
      "6:3 bad_tool_ref",
      "7:3 malformed_loop",
    ]);
  });

  it("rejects a file that is not a mapping, and missing sections", () => {
    expect(where(parsePipeline("- a.one\n").diagnostics)).toEqual(["1:1 shape"]);
    expect(where(parsePipeline("").diagnostics)).toEqual(["1:1 shape"]);
    expect(parsePipeline("pipeline: [a.one]\n").diagnostics.map((d) => d.message)).toEqual(["Missing `servers:`"]);
    expect(parsePipeline(SERVERS).diagnostics.map((d) => d.message)).toEqual(["Missing `pipeline:`"]);
  });

  it("rejects bad servers entries", () => {
    const { diagnostics } = parsePipeline("servers:\n  a.b: servers/a\n  c: 3\n  d: {x: 1}\npipeline: []\n");
    expect(where(diagnostics)).toEqual(["2:3 shape", "3:6 shape", "4:6 shape"]);
  });

  it("reports YAML syntax errors with their position", () => {
    const { pipeline, diagnostics } = parsePipeline("servers:\n  a: servers/a\npipeline:\n- a.one: [unclosed\n", {
      file: "bad.yaml",
    });
    expect(pipeline).toBeUndefined();
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]!.code).toBe("yaml");
    expect(formatDiagnostic(diagnostics[0]!)).toMatch(/^bad\.yaml:\d+:\d+: /);
  });

  it("rejects duplicate keys and multiple documents", () => {
    expect(where(parsePipeline("servers: {}\nservers: {}\npipeline: []\n").diagnostics)).toEqual(["2:1 yaml"]);
    expect(parsePipeline("servers: {}\npipeline: []\n---\nx: 1\n").diagnostics[0]!.code).toBe("yaml");
  });
});

describe("resource limits", () => {
  it("refuses oversized files before parsing", () => {
    const { pipeline, diagnostics } = parsePipeline("pipeline: []\n#" + "x".repeat(2000), {
      file: "big.yaml",
      limits: { maxBytes: 1000 },
    });
    expect(pipeline).toBeUndefined();
    expect(formatDiagnostic(diagnostics[0]!)).toMatch(
      /^big\.yaml:1:1: Pipeline file is 2014 bytes, over the 1000-byte limit \(/,
    );
  });

  it("measures the limit in UTF-8 bytes, not characters", () => {
    expect(parsePipeline("x: " + "é".repeat(600), { limits: { maxBytes: 1000 } }).diagnostics[0]!.code).toBe(
      "too_large",
    );
  });

  it("refuses deep flow nesting without handing it to the YAML parser (which would crash)", () => {
    const started = performance.now();
    const { diagnostics } = parsePipeline("pipeline: " + "[".repeat(100_000) + "]".repeat(100_000));
    expect(where(diagnostics)).toEqual(["1:75 too_deep"]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not count brackets inside quotes or comments", () => {
    const brackets = "[".repeat(100);
    const src = `${SERVERS}# ${brackets}\nx: "${brackets}"\ny: '${brackets}'\npipeline: [a.one]\n`;
    expect(parsePipeline(src).diagnostics).toEqual([]);
  });

  it("refuses deep block nesting", () => {
    let src = "x:\n";
    for (let i = 1; i < 80; i++) src += `${" ".repeat(i)}k:\n`;
    expect(parsePipeline(src).diagnostics.map((d) => d.code)).toEqual(["too_deep"]);
  });

  it("refuses deep loop/branch nesting", () => {
    const nest = (n: number): string => (n === 0 ? "[a.one]" : `[{loop: {times: 1, steps: ${nest(n - 1)}}}]`);
    expect(parse(`pipeline: ${nest(3)}\n`, { limits: { maxStepDepth: 3 } }).diagnostics).toEqual([]);
    const { diagnostics } = parse(`pipeline: ${nest(4)}\n`, { limits: { maxStepDepth: 3 } });
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["too_deep", "Loops and branches are nested deeper than 3 levels"],
    ]);
  });

  it("refuses alias bombs", () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
      "pipeline: *e",
    ].join("\n");
    const { pipeline, diagnostics } = parsePipeline(bomb, { file: "bomb.yaml" });
    expect(pipeline).toBeUndefined();
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "bomb.yaml:1:1: YAML aliases expand past the limit of 100 nodes (this looks like an alias bomb; write the steps out instead of nesting aliases)",
    ]);
  });

  it("reports an alias to an unknown anchor", () => {
    expect(parsePipeline("pipeline: *nope\n").diagnostics[0]!.code).toMatch(/yaml/);
  });
});
