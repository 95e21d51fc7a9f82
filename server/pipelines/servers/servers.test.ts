import { symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import { BUILTIN_SERVERS } from "./builtins.ts";
import { benchmark } from "./benchmark.ts";
import { custom, extractFromBoxed } from "./custom.ts";
import { router } from "./router.ts";
import { sayhello } from "./sayhello.ts";

let cleanup = () => {};
afterEach(() => cleanup());
const ctx = (cwd = "/") => ({ cwd });

describe("sayhello", () => {
  it("greets by the name parameter", async () => {
    expect(await sayhello().call("tool", "greet", { name: "Ada" }, ctx())).toEqual({ msg: "Hello, Ada!" });
    expect((await sayhello().signature()).tools.greet).toEqual({ input: { name: "$name" }, output: ["msg"] });
  });
});

describe("benchmark.get_data", () => {
  const rows = [
    { id: 0, question: "q0", golden_answers: ["a0"] },
    { id: 1, question: "q1" },
    { id: 2, question: "q2", golden_answers: ["a2"] },
    { id: 3, question: "q3", golden_answers: ["a3"] },
  ];
  function data() {
    const t = tempDir({
      "d.jsonl": `${rows.map((r) => JSON.stringify(r)).join("\n")}\n\n`,
      "d.json": JSON.stringify(rows),
      "bad.jsonl": '{"question": "ok"}\nnot json\n',
      "d.csv": "x",
    });
    cleanup = t.cleanup;
    return t.dir;
  }
  const get = (dir: string, cfg: Record<string, unknown>) =>
    benchmark().call(
      "tool",
      "get_data",
      { benchmark: { name: "t", path: "d.jsonl", key_map: { q_ls: "question", gt_ls: "golden_answers" }, ...cfg } },
      ctx(dir),
    );

  it("loads .jsonl and .json relative to the run directory; rows lacking a field are skipped for that key", async () => {
    const dir = data();
    expect(await get(dir, {})).toEqual({ q_ls: ["q0", "q1", "q2", "q3"], gt_ls: [["a0"], ["a2"], ["a3"]] });
    expect(await get(dir, { path: "d.json", limit: 2 })).toEqual({ q_ls: ["q0", "q1"], gt_ls: [["a0"]] });
    expect(await get(dir, { limit: 2 })).toEqual({ q_ls: ["q0", "q1"], gt_ls: [["a0"]] });
  });

  it("the dataset must be inside the run's directory (no ../, absolute paths or symlinks out)", async () => {
    const dir = data();
    const outside = tempDir({ "d.jsonl": '{"question": "secret"}\n' });
    const prev = cleanup;
    cleanup = () => (prev(), outside.cleanup());
    symlinkSync(path.join(outside.dir, "d.jsonl"), path.join(dir, "link.jsonl"));
    for (const p of [path.join(outside.dir, "d.jsonl"), `../${path.basename(outside.dir)}/d.jsonl`, "link.jsonl"])
      await expect(get(dir, { path: p })).rejects.toThrow(
        `benchmark.get_data: benchmark.path "${p}" is outside the run's folder; pipelines run from the web app read and write only files inside it (use a relative path such as data/questions.jsonl)`,
      );
    await expect(get(dir, { path: "nope.jsonl" })).rejects.toThrow('benchmark.path "nope.jsonl" does not exist');
  });

  it("shuffles with Python's seeded order, then limits", async () => {
    const dir = data();
    writeFileSync(
      path.join(dir, "ten.jsonl"),
      Array.from({ length: 10 }, (_, i) => JSON.stringify({ question: `q${i}`, golden_answers: [i] })).join("\n"),
    );
    // random.seed(42); random.shuffle(list(range(10))) == [7, 3, 2, 8, 5, 6, 9, 4, 0, 1]
    expect((await get(dir, { path: "ten.jsonl", shuffle: true, seed: 42, limit: 3 })).q_ls).toEqual(["q7", "q3", "q2"]);
  });

  it("rejects bad configuration and data with messages that say what to fix", async () => {
    const dir = data();
    await expect(get(dir, { limit: 0 })).rejects.toThrow("`limit` must be -1 (all) or a positive number");
    await expect(get(dir, { key_map: {} })).rejects.toThrow("`key_map` must not be empty");
    await expect(get(dir, { path: "missing.jsonl" })).rejects.toThrow(
      'benchmark.get_data: benchmark.path "missing.jsonl" does not exist (paths resolve against the run\'s folder)',
    );
    await expect(get(dir, { path: "bad.jsonl" })).rejects.toThrow(/bad\.jsonl:2 is not valid JSON/);
    await expect(get(dir, { path: "d.csv" })).rejects.toThrow("unsupported dataset type '.csv'");
    await expect(get(dir, { shuffle: true })).rejects.toThrow(
      "cannot shuffle: 'gt_ls' has 3 values but the first key has 4",
    );
  });
});

describe("custom", () => {
  it("extracts the last boxed answer like UltraRAG (the P3 answers)", () => {
    expect(extractFromBoxed("Thinking... The answer is \\boxed{December 1972}.")).toBe("December 1972");
    expect(extractFromBoxed("\\boxed{\\text{James I}}")).toBe("James I");
    expect(extractFromBoxed("No box here: 54 Mbit/s")).toBe("No box here: 54 Mbit/s");
    expect(extractFromBoxed("\\boxed{1} then \\boxed{$x^{2}$}")).toBe("x^{2}");
    expect(extractFromBoxed("\\boxed{(a)}")).toBe("a");
  });

  it("extracts search queries and merges passages without touching its inputs", async () => {
    const c = custom();
    expect(
      await c.call(
        "tool",
        "search_r1_query_extract",
        {
          ans_ls: [
            "<think>need to search</think><search> first moon landing </search>",
            "no query",
            "<search>a?</search>",
          ],
        },
        ctx(),
      ),
    ).toEqual({
      extract_query_list: ["first moon landing?", "There is no query.", "a?"],
    });
    const ret = [["a"], ["b"]];
    expect(await c.call("tool", "merge_passages", { temp_psg: [["x"], ["y"]], ret_psg: ret }, ctx())).toEqual({
      ret_psg: [
        ["a", "x"],
        ["b", "y"],
      ],
    });
    expect(ret).toEqual([["a"], ["b"]]);
    expect(await c.call("tool", "iterretgen_nextquery", { q_ls: ["q"], ans_ls: ["a"] }, ctx())).toEqual({
      nextq_ls: ["q a"],
    });
    expect((await c.signature()).tools.iterretgen_nextquery).toEqual({
      input: { q_ls: "q_ls", ans_ls: "ret_psg" },
      output: ["nextq_ls"],
    });
  });

  it("numbers citations per item, stable across calls until the registry is reset", async () => {
    const c = custom();
    const first = await c.call("tool", "assign_citation_ids_stateful", { ret_psg: [["a ", "b"]] }, ctx());
    const second = await c.call("tool", "assign_citation_ids_stateful", { ret_psg: [["c", "a"]] }, ctx());
    expect([first.ret_psg, second.ret_psg]).toEqual([[["[1] a", "[2] b"]], [["[3] c", "[1] a"]]]);
    await c.call("tool", "init_citation_registry", { q_ls: ["q"] }, ctx());
    expect((await c.call("tool", "assign_citation_ids_stateful", { ret_psg: [["c"]] }, ctx())).ret_psg).toEqual([
      ["[1] c"],
    ]);
    // Another alias of the same server has its own registry.
    expect((await custom().call("tool", "assign_citation_ids_stateful", { ret_psg: [["z"]] }, ctx())).ret_psg).toEqual([
      ["[1] z"],
    ]);
  });

  it("says which item is wrong when a batch holds something other than text", async () => {
    await expect(custom().call("tool", "output_extract_from_boxed", { ans_ls: ["ok", 3] }, ctx())).rejects.toThrow(
      "item 1 of `ans_ls` must be text",
    );
    await expect(custom().call("tool", "output_extract_from_boxed", { ans_ls: null }, ctx())).rejects.toThrow(
      "input `ans_ls` must be a list, got null",
    );
  });
});

describe("router", () => {
  const r = router();
  it("labels each item with a state", async () => {
    expect(
      await r.call("tool", "search_r1_check", { ans_ls: ["<answer>x</answer><|im_end|>", "<search>y"] }, ctx()),
    ).toEqual({
      ans_ls: [
        { data: "<answer>x</answer><|im_end|>", state: "complete" },
        { data: "<search>y", state: "incomplete" },
      ],
    });
    expect((await r.call("tool", "route1", { query_list: ["1", 2] }, ctx())).query_list).toEqual([
      { data: "1", state: "state1" },
      { data: 2, state: "state2" },
    ]);
    expect((await r.call("tool", "ircot_check_end", { ans_ls: ["So the answer is 4"] }, ctx())).ans_ls).toEqual([
      { data: "So the answer is 4", state: "complete" },
    ]);
    expect((await r.call("tool", "webnote_check_page", { page_ls: ["(to be filled)"] }, ctx())).page_ls).toEqual([
      { data: "(to be filled)", state: "incomplete" },
    ]);
  });

  it("routes several lists together by one state", async () => {
    const out = await r.call(
      "tool",
      "search_o1_check",
      {
        ans_ls: ["<|end_search_query|>", "done"],
        q_ls: ["a", "b"],
        total_subq_list: [[], []],
        total_reason_list: [[], []],
        total_final_info_list: [[], []],
      },
      ctx(),
    );
    expect((out.q_ls as { state: string }[]).map((x) => x.state)).toEqual(["retrieve", "stop"]);
    expect(Object.keys(out)).toEqual([
      "ans_ls",
      "q_ls",
      "total_subq_list",
      "total_reason_list",
      "total_final_info_list",
    ]);
  });

  it("explains bad router input", async () => {
    await expect(r.call("tool", "route1", { query_list: ["one"] }, ctx())).rejects.toThrow(
      '"one" is not a whole number',
    );
  });
});

describe("server signatures", () => {
  it("declare UltraRAG's signatures (P2's retriever and prompt entries); tools that need setup say so", async () => {
    const retriever = BUILTIN_SERVERS.retriever!();
    expect((await retriever.signature()).tools.bm25_search).toEqual({
      input: { query_list: "q_ls", top_k: "$top_k" },
      output: ["ret_psg"],
    });
    await expect(retriever.call("tool", "retriever_search", { query_list: ["q"], top_k: 1 }, ctx())).rejects.toThrow(
      "retriever.retriever_search: run retriever.retriever_init first",
    );
    const prompt = BUILTIN_SERVERS.prompt!();
    // gen_subq_template is not a prompt parameter upstream, so it stays a pool variable (P2.2).
    expect((await prompt.signature()).prompts.gen_subq).toEqual({
      input: { q_ls: "q_ls", ret_psg: "ret_psg", template: "gen_subq_template" },
      output: ["prompt_ls"],
    });
    expect((await prompt.signature()).prompts.search_r1_gen!.input.template).toBe("$search_r1_gen_template");
    expect(Object.keys(BUILTIN_SERVERS).sort()).toEqual([
      "benchmark",
      "corpus",
      "custom",
      "evaluation",
      "generation",
      "memory",
      "prompt",
      "reranker",
      "retriever",
      "router",
      "sayhello",
    ]);
  });
});
