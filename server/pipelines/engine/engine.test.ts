import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PipelineEvent } from "./events.ts";
import { writeMemoryFile } from "./memory-file.ts";
import { runPipeline, type RunOptions } from "./run.ts";
import { calls, TEST_BUILTINS, tempDir } from "./test-support.ts";
import { UNSET } from "./values.ts";
import { parsePipeline } from "../dsl/parse.ts";

const SERVERS = `servers:
  toy: servers/toy
  route: servers/route
  custom: servers/custom
pipeline:
`;

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  calls.length = 0;
});
afterEach(() => cleanup());

async function run(steps: string, options: RunOptions & { files?: Record<string, string> } = {}) {
  const { files, ...rest } = options;
  const t = tempDir({ "p.yaml": SERVERS + steps, ...files });
  dir = t.dir;
  const prev = cleanup;
  cleanup = () => (prev(), t.cleanup());
  return runPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS, ...rest });
}

const memoryFiles = () => (existsSync(path.join(dir, "output")) ? readdirSync(path.join(dir, "output")) : []);
const steps = (r: { snapshots: { step: string }[] }) => r.snapshots.map((s) => s.step);

describe("input/output remapping", () => {
  it("renames outputs, reads remapped inputs, and keeps overrides to their own step (Q1 fixed)", async () => {
    const r = await run(`- toy.seed
- toy.echo:
    output: {ans_ls: first}
- toy.echo:
    input: {q_ls: first}
    output: {ans_ls: second}
- toy.echo
`);
    expect(r.variables.first).toEqual(["q0!", "q1!", "q2!"]);
    expect(r.variables.second).toEqual(["q0!!", "q1!!", "q2!!"]);
    // The last, unmapped echo reads q_ls again (upstream's sticky override would read `first`).
    expect(r.variables.ans_ls).toEqual(["q0!", "q1!", "q2!"]);
    expect(r.snapshots[1]).toEqual({ step: "toy.echo", memory: { memory_first: ["q0!", "q1!", "q2!"] } });
  });

  it("stores only the keys a partial output map names (Q3 kept)", async () => {
    const r = await run(`- toy.seed:
    output: {q_ls: questions}
`);
    expect(r.variables.questions).toEqual(["q0", "q1", "q2"]);
    expect(r.variables.gt_ls).toBeNull();
    expect(r.snapshots[0]!.memory).toEqual({ memory_questions: ["q0", "q1", "q2"] });
  });

  it("fails with the step name when a tool does not return a declared output", async () => {
    await expect(run(`- toy.seed\n- toy.missing\n`)).rejects.toThrow(
      "Output key nothing not found in data for step toy.missing (it returned: other)",
    );
    expect(memoryFiles()).toEqual([]);
  });

  it("wraps a tool's own error with the step name", async () => {
    const events: PipelineEvent[] = [];
    await expect(run(`- toy.seed\n- toy.boom\n`, { onEvent: (e) => events.push(e) })).rejects.toThrow(
      "Step toy.boom failed: the toy exploded",
    );
    expect(events.at(-1)).toEqual({ type: "error", message: "Step toy.boom failed: the toy exploded" });
  });
});

describe("$param resolution", () => {
  it("reads $params from the server defaults, the pipeline parameter file, or --param", async () => {
    expect((await run(`- toy.seed\n- toy.echo\n- toy.tag\n`)).variables.ans_ls).toEqual([">q0!", ">q1!", ">q2!"]);
    const withFile = await run(`- toy.seed\n- toy.echo\n- toy.tag\n`, {
      files: { "parameter/p_parameter.yaml": "toy:\n  n: 2\n  prefix: '#'\n" },
    });
    expect(withFile.variables.ans_ls).toEqual(["#q0!", "#q1!"]);
    const withParam = await run(`- toy.seed\n- toy.echo\n- toy.tag\n`, {
      files: { "alt.yaml": "toy: {n: 1, prefix: '@'}\n" },
      param: "alt.yaml",
    });
    expect(withParam.variables.ans_ls).toEqual(["@q0!"]);
  });

  it("a parameter-file section replaces the alias's defaults (no deep merge), so a missing key is an error before any call", async () => {
    await expect(
      run(`- toy.seed\n- toy.echo\n- toy.tag\n`, { files: { "parameter/p_parameter.yaml": "toy:\n  n: 2\n" } }),
    ).rejects.toThrow(/p\.yaml:8:3: Variable prefix not found in toy parameter\.yaml \(step toy\.tag\)/);
    expect(calls).toEqual([]);
  });

  it("a $name input override must exist in the parameters", async () => {
    await expect(run(`- toy.seed:\n    input: {n: $count}\n`)).rejects.toThrow(
      "Variable count not found in toy parameter.yaml (step toy.seed)",
    );
    expect(calls).toEqual([]);
  });

  it("refuses a --param file that does not exist, with UltraRAG's message", async () => {
    await expect(run(`- toy.seed\n`, { param: "nope.yaml" })).rejects.toThrow(
      "[UltraRAG Error] Parameter file 'nope.yaml' does not exist",
    );
  });

  it("refuses a parameter file that is not a mapping of sections", async () => {
    await expect(run(`- toy.seed\n`, { files: { "bad.yaml": "toy: [1, 2]\n" }, param: "bad.yaml" })).rejects.toThrow(
      "section `toy` must be a mapping",
    );
    await expect(run(`- toy.seed\n`, { files: { "bad.yaml": "toy: {n: [\n" }, param: "bad.yaml" })).rejects.toThrow(
      "is not valid YAML",
    );
  });
});

describe("loops", () => {
  it("a loop of ordinary steps always runs `times` iterations", async () => {
    const r = await run(`- toy.seed
- toy.echo
- loop:
    times: 3
    steps:
    - toy.step_up
- toy.history
`);
    expect(calls.filter((c) => c === "step_up")).toHaveLength(3);
    expect(r.variables.ans_ls).toEqual(["q0!+++", "q1!+++", "q2!+++"]);
    // memory_ans_ls: one entry per save (echo + 3 rounds); history reads it as a list of rounds.
    expect(r.variables.rounds).toBe(4);
    expect((r.variables.memory_ans_ls as unknown[])[1]).toEqual(["q0!+", "q1!+", "q2!+"]);
  });

  it("exits early in the iteration where the router sends every item to an empty state", async () => {
    const r = await run(
      `- toy.seed
- toy.echo:
    input: {q_ls: gt_ls}
- loop:
    times: 10
    steps:
    - branch:
        router:
        - route.plus_check
        branches:
          more:
          - toy.step_up
          done: []
`,
      { files: { "parameter/p_parameter.yaml": "toy: {n: 2, prefix: x}\n" }, overrides: {} },
    );
    void r;
    // gt_ls = [["g0"], ["g1"]] → echo → "g0!"/"g1!": needs 0 / 1 plus.
    expect(calls.filter((c) => c === "plus_check")).toHaveLength(2);
    expect(r.variables.ans_ls).toEqual(["g0!", "g1!+"]);
    expect(steps(r)).toEqual(["toy.seed", "toy.echo", "route.plus_check", "toy.step_up", "route.plus_check"]);
  });

  const q4 = (form: "string" | "dict") => `- toy.seed
- toy.echo:
    input: {q_ls: q_ls}
    output: {ans_ls: ans_ls}
- toy.tag
- loop:
    times: 5
    steps:
    - branch:
        router:
        - route.plus_check
        branches:
          done:
          - toy.mark
          more:
          - toy.step_up
${form === "string" ? "          - toy.use_side" : "          - toy.use_side: {input: {side: side}}"}
`;

  it("string steps assign the loop flag, so a skipped step after an executed one ends the loop (Q4 kept)", async () => {
    // q0 needs 0 pluses (done at once), q1 one, q2 two. Iteration 1: done → mark (side is now routed,
    // UNSET for q1/q2); more → step_up runs, then use_side is skipped (its items are all UNSET) and,
    // being a string step, sets the loop's flag → the loop ends although q2 is not done.
    const r = await run(q4("string"), { files: { "parameter/p_parameter.yaml": "toy: {n: 3, prefix: ''}\n" } });
    expect(calls.filter((c) => c === "plus_check")).toHaveLength(1);
    expect(calls.filter((c) => c === "use_side")).toHaveLength(0);
    expect(r.variables.ans_ls).toEqual(["q0!", "q1!+", "q2!+"]);
  });

  it("dict steps AND the loop flag, so the same pipeline keeps looping (Q4 kept)", async () => {
    const r = await run(q4("dict"), { files: { "parameter/p_parameter.yaml": "toy: {n: 3, prefix: ''}\n" } });
    expect(calls.filter((c) => c === "plus_check")).toHaveLength(5);
    expect(r.variables.ans_ls).toEqual(["q0!", "q1!+", "q2!++"]);
  });

  it("a loop that ran all its iterations does not cut a later loop short (Q5 fixed)", async () => {
    await run(`- loop:
    times: 2
    steps:
    - toy.count
- loop:
    times: 3
    steps:
    - toy.count
`);
    expect(calls).toEqual(["count", "count", "count", "count", "count"]);
  });

  it("nested loops run their full counts: a step that runs in an inner loop keeps the outer loop going (Q5 fixed)", async () => {
    await run(`- loop:
    times: 2
    steps:
    - loop:
        times: 3
        steps:
        - toy.count
`);
    expect(calls).toHaveLength(6);
  });
});

describe("branches", () => {
  const three = `- toy.seed
- branch:
    router:
    - route.three
    branches:
      a:
      - toy.echo:
          output: {ans_ls: res}
      b:
      - toy.shout:
          output: {ans_ls: res}
      - toy.pair:
          input: {a: q_ls, b: res}
      c: []
`;

  it("runs each returned state's steps on its own items and pads the rest with UNSET", async () => {
    const r = await run(three, { files: { "parameter/p_parameter.yaml": "toy: {n: 5, prefix: x}\n" } });
    expect(r.variables.res).toEqual(["q0!", "Q1", UNSET, "q3!", "Q4"]);
    expect(steps(r)).toEqual(["toy.seed", "route.three", "toy.echo", "toy.shout", "toy.pair"]);
    // In branch b, the plain q_ls is filtered to b's items like the routed res (Q2 fixed): aligned pairs.
    expect(r.variables.pair_ls).toEqual([UNSET, "q1|Q1", UNSET, UNSET, "q4|Q4"]);
    // The memory file renders UNSET as "<UNSET>" (Q7 kept).
    const memory = JSON.parse(readFileSync(r.memoryFile!, "utf8")) as {
      step: string;
      memory: Record<string, unknown>;
    }[];
    expect(memory[2]).toEqual({
      step: "toy.echo",
      memory: { memory_res: ["q0!", "<UNSET>", "<UNSET>", "q3!", "<UNSET>"] },
    });
    expect(memory[3]!.memory.memory_res).toEqual(["q0!", "Q1", "<UNSET>", "q3!", "Q4"]);
    expect(memory[1]).toEqual({ step: "route.three", memory: { memory_q_ls: ["q0", "q1", "q2", "q3", "q4"] } });
  });

  it("fails clearly when a router returns a state the branch does not list", async () => {
    await expect(
      run(`- toy.seed
- branch:
    router: [route.bogus]
    branches:
      a: []
`),
    ).rejects.toThrow('Router route.bogus returned state "nowhere", which the branch does not list; its states: a');
  });

  it("fails when a step in a branch returns a different number of values than the branch has items", async () => {
    await expect(
      run(
        `- toy.seed
- branch:
    router: [route.three]
    branches:
      a:
      - toy.short:
          output: {ans_ls: res}
      b:
      - toy.echo:
          output: {ans_ls: res}
      - toy.short:
          output: {ans_ls: res}
      c: []
`,
        { files: { "parameter/p_parameter.yaml": "toy: {n: 5, prefix: x}\n" } },
      ),
    ).rejects.toThrow(
      "Step toy.short returned 1 value(s) for `res` but branch branch1_a has 2 item(s) (length < items in the pool)",
    );
  });

  it("runs router pre-steps first and nested branches on the parent's items", async () => {
    const r = await run(
      `- toy.seed
- branch:
    router:
    - toy.echo
    - route.three
    branches:
      a:
      - branch:
          router: [route.plus_check]
          branches:
            more:
            - toy.step_up
            done: []
      b: []
      c: []
`,
      { files: { "parameter/p_parameter.yaml": "toy: {n: 4, prefix: x}\n" } },
    );
    // a = items 0 and 3 ("q0!" needs 0 pluses → done, "q3!" needs 3 → more).
    expect(r.variables.ans_ls).toEqual(["q0!", UNSET, UNSET, "q3!+"]);
  });
});

describe("memory file and events", () => {
  it("writes output/memory_<bench>_<stem>_<ts>.json with one snapshot per executed step, and never overwrites", async () => {
    const now = () => new Date(2026, 0, 2, 3, 4, 5);
    const a = await run(`- toy.seed\n- toy.count\n`, { now });
    expect(path.basename(a.memoryFile!)).toBe("memory__p_20260102_030405.json");
    expect(JSON.parse(readFileSync(a.memoryFile!, "utf8"))).toEqual([
      { step: "toy.seed", memory: { memory_q_ls: ["q0", "q1", "q2"], memory_gt_ls: [["g0"], ["g1"], ["g2"]] } },
      { step: "toy.count", memory: {} },
    ]);
    const b = await runPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS, now });
    expect(path.basename(b.memoryFile!)).toBe("memory__p_20260102_030405_2.json");
  });

  it("a benchmark name cannot place the memory file outside output/", () => {
    const file = writeMemoryFile(
      dir,
      "p",
      { benchmark: { benchmark: { name: "../../x/\u0000y\\z" } } },
      [],
      new Date(2026, 0, 2, 3, 4, 5),
    );
    expect(path.dirname(file)).toBe(path.join(dir, "output"));
    expect(path.basename(file)).toBe("memory_.._.._x__y_z_p_20260102_030405.json");
  });

  it("emits step_start/step_end per step, loop and branch markers, nothing for routers, and only step_start for skipped steps", async () => {
    const events: PipelineEvent[] = [];
    await run(
      `- toy.seed
- toy.echo
- loop:
    times: 2
    steps:
    - branch:
        router: [route.plus_check]
        branches:
          done:
          - toy.mark
          more:
          - toy.use_side
`,
      { onEvent: (e) => events.push(e), files: { "parameter/p_parameter.yaml": "toy: {n: 2, prefix: x}\n" } },
    );
    expect(
      events.map((e) =>
        e.type === "step_start"
          ? `start ${e.name} ${e.depth}`
          : e.type === "step_end"
            ? `end ${e.name} ${e.output}`
            : e.type,
      ),
    ).toEqual([
      "start toy.seed 0",
      "end toy.seed Output Keys: ['q_ls', 'gt_ls']",
      "start toy.echo 0",
      "end toy.echo Output Keys: ['ans_ls']",
      "start loop 0",
      "start branch 1",
      "start toy.mark 1",
      "end toy.mark Output Keys: ['side']",
      "start toy.use_side 1", // skipped: its `side` items are UNSET on this branch — and the loop ends
      "final",
    ]);
  });

  it("streams tokens from a tool, final only when nothing but memory steps follow; citation tools emit sources", async () => {
    const events: PipelineEvent[] = [];
    await run(`- toy.seed\n- toy.stream\n- toy.passages\n- custom.assign_citation_ids\n- toy.stream\n`, {
      onEvent: (e) => events.push(e),
      files: { "parameter/p_parameter.yaml": "toy: {n: 1, prefix: x}\n" },
    });
    expect(events.filter((e) => e.type === "token")).toEqual([
      { type: "token", content: "Hel", step: "toy.stream", is_final: false },
      { type: "token", content: "lo", step: "toy.stream", is_final: false },
      { type: "token", content: "Hel", step: "toy.stream", is_final: true },
      { type: "token", content: "lo", step: "toy.stream", is_final: true },
    ]);
    expect(events.filter((e) => e.type === "sources")).toEqual([
      {
        type: "sources",
        data: [
          { id: 1, title: "doc A0...", content: "doc A0\nbody" },
          { id: 2, title: "[7] cited...", content: "[7] cited" },
          { id: 3, title: "doc A0...", content: "doc A0\nbody" },
        ],
      },
    ]);
    const final = events.at(-1);
    expect(final).toMatchObject({ type: "final", data: { status: "succeeded", answer: "Hello", is_first_turn: true } });
  });

  it("puts the model tokens a step's requests used on its step_end, and none on steps that made no request", async () => {
    const events: PipelineEvent[] = [];
    const withTokens = async (stepTokens: boolean) => {
      events.length = 0;
      await run(`- toy.seed\n- toy.stream\n`, {
        stepTokens,
        onEvent: (e) => events.push(e),
        files: { "parameter/p_parameter.yaml": "toy: {n: 1, prefix: x}\n" },
      });
      return events.filter((e) => e.type === "step_end");
    };
    // Off (the CLI, UltraRAG's own event shape): no step_end carries tokens.
    expect((await withTokens(false)).some((e) => "tokens" in e)).toBe(false);
    const ends = await withTokens(true);
    expect(ends.map((e) => [e.name, e.tokens])).toEqual([
      ["toy.seed", undefined],
      ["toy.stream", { input: 15, output: 3 }],
    ]);
    expect("tokens" in ends[0]!).toBe(false);
  });

  it("stops before the next step when cancelled", async () => {
    const controller = new AbortController();
    const p = run(`- toy.seed\n- toy.stream\n- toy.count\n`, {
      signal: controller.signal,
      onEvent: (e) => e.type === "step_end" && e.name === "toy.stream" && controller.abort(),
    });
    await expect(p).rejects.toThrow("The run was cancelled");
    expect(calls).toEqual(["seed", "stream"]);
  });
});

describe("validation happens before any tool runs", () => {
  const cases: [string, string, string][] = [
    [
      "unknown server",
      "servers:\n  toy: servers/toy\n  x: servers/nope\npipeline:\n- toy.seed\n",
      "p.yaml:3:6: Unknown server `servers/nope` for alias `x`",
    ],
    [
      "unknown alias",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- tyo.echo\n",
      "p.yaml:5:3: Unknown server alias `tyo` in step tyo.echo",
    ],
    [
      "unknown tool",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.ecko\n",
      "p.yaml:5:3: Server alias `toy` has no tool `ecko` (did you mean `echo`?",
    ],
    [
      "variable used before produced",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.tag\n",
      "p.yaml:5:3: Variable ans_ls cannot be found from pipeline before toy.tag step",
    ],
    [
      "missing $param",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed:\n    input: {n: $m}\n",
      "Variable m not found in toy parameter.yaml",
    ],
    [
      "malformed loop",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- loop: {times: x, steps: [toy.count]}\n",
      "Loop `times:` must be an integer",
    ],
    [
      "malformed branch",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- branch: {branches: {a: []}}\n",
      "Router not found in branch config",
    ],
    [
      "bad tool reference",
      "servers:\n  toy: servers/toy\npipeline:\n- toy.seed.x\n",
      "`toy.seed.x` is not a tool reference",
    ],
    ["YAML syntax", "servers:\n  toy: servers/toy\npipeline:\n- [toy.seed\n", "p.yaml:"],
    [
      "alias bomb",
      `servers:\n  toy: servers/toy\nx: &a [1,1,1,1,1,1,1,1,1,1]\ny: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nz: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\npipeline:\n- toy.seed\n`,
      "YAML aliases expand past the limit",
    ],
    [
      "too deep",
      `servers:\n  toy: servers/toy\npipeline:\n- ${"[".repeat(100)}${"]".repeat(100)}\n`,
      "YAML nesting is deeper than",
    ],
    ["not a pipeline", "- toy.seed\n", "A pipeline file must be a mapping"],
    ["missing file", "", "Pipeline file 'missing.yaml' does not exist"],
  ];

  it.each(cases)("%s", async (_name, source, message) => {
    const t = tempDir(source ? { "p.yaml": source } : {});
    try {
      const events: PipelineEvent[] = [];
      await expect(
        runPipeline(source ? "p.yaml" : "missing.yaml", {
          cwd: t.dir,
          builtins: TEST_BUILTINS,
          onEvent: (e) => events.push(e),
        }),
      ).rejects.toThrow(message);
      expect(calls).toEqual([]);
      expect(existsSync(path.join(t.dir, "output"))).toBe(false);
      expect(events.map((e) => e.type)).toEqual(["error"]);
    } finally {
      t.cleanup();
    }
  });

  it("refuses an oversized pipeline file", async () => {
    const t = tempDir({
      "p.yaml": `servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n#${"x".repeat(1024 * 1024)}\n`,
    });
    try {
      await expect(runPipeline("p.yaml", { cwd: t.dir, builtins: TEST_BUILTINS })).rejects.toThrow(
        "over the 1048576-byte limit",
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("a pipeline the caller already parsed and validated (RunOptions.checked)", () => {
  it("runs that tree: the file is neither parsed nor validated again", async () => {
    const t = tempDir({ "p.yaml": "servers:\n  sayhello: servers/sayhello\npipeline:\n- sayhello.greet\n" });
    try {
      const twice = parsePipeline(
        "servers:\n  sayhello: servers/sayhello\npipeline:\n- sayhello.greet\n- sayhello.greet\n",
        {
          file: "p.yaml",
        },
      ).pipeline!;
      const plain = await runPipeline("p.yaml", { cwd: t.dir, writeMemory: false });
      const checked = await runPipeline("p.yaml", { cwd: t.dir, writeMemory: false, checked: twice });
      expect(plain.snapshots).toHaveLength(1);
      expect(checked.snapshots).toHaveLength(2);
    } finally {
      t.cleanup();
    }
  });
});
