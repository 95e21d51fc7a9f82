/**
 * Public conformance checks P3–P6 (ULTRARAG-SPEC §9.1) on UltraRAG's own pipeline files, unchanged,
 * in a writable copy of ../shared/ultrarag, with the scripted LLM (real HTTP, the real OpenAI SDK)
 * and the offline stand-ins §9.0 allows: the "local embedding model" is Argus's hash embedder (dense
 * checks assert shapes and membership only, as §9.0 says). Parameters are `build ⊕ overrides`,
 * passed with --param, as §9.0 prescribes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { runPipelineCli } from "../cli/pipeline.ts";
import { startScriptedServer } from "../llm/scripted/server.ts";
import type { RuleInput } from "../llm/scripted/script.ts";
import type { PipelineEvent } from "./engine/events.ts";
import { runPipeline } from "./engine/run.ts";
import { ultraragCopy } from "./engine/test-support.ts";

const llm = await startScriptedServer({ script: { rules: [] } });
afterAll(() => llm.close());

let dir: string;
let cleanup: () => void;
let tmp: string;
beforeEach(() => {
  ({ dir, cleanup } = ultraragCopy());
  tmp = path.join(dir, "tmp-check");
  mkdirSync(tmp);
  llm.reset();
});
afterEach(() => cleanup());

/** Rules as §9.0 specifies: first substring match wins; anything else answers NO_RULE (and fails the check). */
const script = (rules: [string, string | string[]][]): RuleInput[] => [
  ...rules.map(([match, text]) => ({ match, text })),
  { text: "NO_RULE" },
];

async function cli(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await runPipelineCli(argv, { cwd: dir, out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
function merge(a: unknown, b: unknown): unknown {
  if (!isObj(a) || !isObj(b)) return b;
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
  return out;
}

/** `build(P) ⊕ overrides` written to <tmp>/<name>.yaml; returns its path. */
async function params(pipeline: string, overrides: Obj, name = "p"): Promise<string> {
  expect((await cli("build", pipeline)).code).toBe(0);
  const stem = path.basename(pipeline, ".yaml");
  const built = parse(
    readFileSync(path.join(dir, path.dirname(pipeline), "parameter", `${stem}_parameter.yaml`), "utf8"),
  );
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, stringify(merge(built, overrides)));
  return file;
}

const GEN = () => ({
  generation: {
    backend: "openai",
    backend_configs: {
      openai: {
        model_name: "scripted",
        base_url: llm.openaiBaseURL,
        api_key: "sk-test",
        concurrency: 1,
        retries: 1,
        base_delay: 0.1,
      },
    },
    sampling_params: { temperature: 0.0, top_p: 1.0, max_tokens: 256 },
    extra_params: { chat_template_kwargs: { enable_thinking: false } },
    system_prompt: "",
  },
});
const BENCH = (n: number, p = "data/sample_nq_10.jsonl") => ({
  benchmark: {
    benchmark: {
      name: "nq",
      path: p,
      key_map: { q_ls: "question", gt_ls: "golden_answers" },
      shuffle: false,
      seed: 42,
      limit: n,
    },
  },
});
const DENSE = () => ({
  retriever: {
    backend: "sentence_transformers",
    model_name_or_path: "local-model-stand-in",
    gpu_ids: null,
    batch_size: 16,
    corpus_path: "data/corpus_example.jsonl",
    embedding_path: `${tmp}/emb.npy`,
    overwrite: false,
    index_backend: "faiss",
    index_backend_configs: {
      faiss: { index_use_gpu: false, index_chunk_size: 10000, index_path: `${tmp}/faiss.index` },
    },
    top_k: 3,
    query_instruction: "",
    is_demo: false,
    is_multimodal: false,
    collection_name: "wiki",
  },
});

const memoryFiles = (re: RegExp) =>
  existsSync(path.join(dir, "output")) ? readdirSync(path.join(dir, "output")).filter((f) => re.test(f)) : [];
const readMemory = (f: string) =>
  JSON.parse(readFileSync(path.join(dir, "output", f), "utf8")) as { step: string; memory: Record<string, unknown> }[];
const corpus = () =>
  readFileSync(path.join(dir, "data/corpus_example.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { contents: string }).contents);

describe("P3 — serial QA with evaluation (vanilla_llm.yaml)", () => {
  it("sends 10 UltraRAG-shaped requests, extracts the boxed answers and scores them exactly", async () => {
    llm.setScript(
      script([
        ["on the moon", "Thinking... The answer is \\boxed{December 1972}."],
        ["brother lyrics", "\\boxed{Bob Russell and Bobby Scott}"],
        ["bastard executioner", "\\boxed{One}"],
        ["eagles win", "\\boxed{2018}"],
        ["ncaa women", "\\boxed{the South Carolina Gamecocks}"],
        ["isle of wight", "\\boxed{During the last Ice Age}"],
        ["love yourself", "\\boxed{Selena Gomez}"],
        ["ruler of england", "\\boxed{\\text{James I}}"],
        ["hot coffee", "\\boxed{a normally inaccessible mini-game}"],
        ["802.11a", "No box here: 54 Mbit/s"],
      ]),
    );
    const p = await params("examples/experiments/vanilla_llm.yaml", {
      ...BENCH(-1),
      ...GEN(),
      prompt: { template: "prompt/qa_boxed.jinja" },
      evaluation: {
        metrics: ["acc", "f1", "em", "coverem", "stringem"],
        save_path: `${tmp}/eval/evaluate_results.json`,
      },
    });
    const r = await cli("run", "examples/experiments/vanilla_llm.yaml", "--param", p);
    expect(r.err).not.toContain("Error");
    expect(r.code).toBe(0);

    expect(llm.requests).toHaveLength(10);
    const template = readFileSync(path.join(dir, "prompt/qa_boxed.jinja"), "utf8");
    const questions = readFileSync(path.join(dir, "data/sample_nq_10.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { question: string }).question);
    for (const req of llm.requests) {
      expect(req.body).toMatchObject({
        model: "scripted",
        temperature: 0,
        top_p: 1,
        max_tokens: 256,
        chat_template_kwargs: { enable_thinking: false },
      });
      expect(req.body.stream).not.toBe(true);
      const msgs = req.body.messages as { role: string; content: string }[];
      expect(msgs).toHaveLength(1);
      expect(msgs[0]!.role).toBe("user");
      expect(req.rule).not.toBe(10); // never NO_RULE
    }
    const sent = llm.requests.map((q) => (q.body.messages as { content: string }[])[0]!.content).sort();
    const expected = questions.map((q) => template.replace("{{question}}", q.replace(/'/g, "&#39;"))).sort();
    expect(sent).toEqual(expected);

    const [file, ...more] = memoryFiles(/^memory_nq_vanilla_llm_\d{8}_\d{6}\.json$/);
    expect(more).toEqual([]);
    const memory = readMemory(file!);
    expect(memory.map((s) => s.step)).toEqual([
      "benchmark.get_data",
      "generation.generation_init",
      "prompt.qa_boxed",
      "generation.generate",
      "custom.output_extract_from_boxed",
      "evaluation.evaluate",
    ]);
    expect(memory[4]!.memory.memory_pred_ls).toEqual([
      "December 1972",
      "Bob Russell and Bobby Scott",
      "One",
      "2018",
      "the South Carolina Gamecocks",
      "During the last Ice Age",
      "Selena Gomez",
      "James I",
      "a normally inaccessible mini-game",
      "No box here: 54 Mbit/s",
    ]);
    const expectedEval = {
      acc: [1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
      f1: [1.0, 0.5714285714285715, 1.0, 0.0, 0.8, 1.0, 0.0, 1.0, 1.0, 0.6666666666666666],
      em: [1, 0, 1, 0, 0, 1, 0, 1, 1, 0],
      coverem: [1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
      stringem: [0.5, 0, 0.5, 0, 0, 1, 0, 1, 1, 0],
      avg_acc: 0.8,
      avg_f1: 0.7038095238095239,
      avg_em: 0.5,
      avg_coverem: 0.8,
      avg_stringem: 0.4,
    };
    const evalFiles = readdirSync(path.join(tmp, "eval"));
    expect(evalFiles).toHaveLength(1);
    expect(evalFiles[0]).toMatch(/^evaluate_results_\d{8}_\d{6}\.json$/);
    const saved = JSON.parse(readFileSync(path.join(tmp, "eval", evalFiles[0]!), "utf8")) as Obj;
    expect(Object.keys(saved)).toEqual(Object.keys(expectedEval));
    expect(saved).toEqual(expectedEval);
    expect(memory[5]!.memory.memory_eval_res).toEqual(expectedEval);
  });
});

describe("P4 — BM25 index + search (bm25_index.yaml, bm25_search.yaml)", () => {
  it("indexes the corpus and finds each query's passage first, 2 distinct corpus passages per query", async () => {
    const questions = [
      "ice storm brutally cold temperatures San Diego Chargers",
      "Podolak Warren McVea return duties Lamar Hunt",
      "Charlie Finley Athletics bond issue Green Bay Packers",
      "Kivett Myers Hellmuth Obata Kassabaum Populous",
      "entertainment facility various other events during the year",
    ];
    writeFileSync(
      path.join(tmp, "q_bm25.jsonl"),
      questions.map((q, id) => JSON.stringify({ id, question: q, golden_answers: ["-"], meta_data: {} })).join("\n"),
    );
    const retriever = {
      retriever: {
        backend: "bm25",
        backend_configs: { bm25: { lang: "en", tokenizer: "auto", save_path: `${tmp}/bm25` } },
        corpus_path: "data/corpus_example.jsonl",
        overwrite: false,
        top_k: 2,
        gpu_ids: null,
        index_backend: "faiss",
      },
    };
    const pIndex = await params("examples/experiments/bm25_index.yaml", retriever, "index");
    const indexed = await cli("run", "examples/experiments/bm25_index.yaml", "--param", pIndex);
    expect(indexed.err).not.toContain("failed");
    expect(indexed.code).toBe(0);
    const [indexFile] = memoryFiles(/_bm25_index_/);
    expect(readMemory(indexFile!)).toEqual([
      { step: "retriever.retriever_init", memory: {} },
      { step: "retriever.bm25_index", memory: {} },
    ]);

    const pSearch = await params(
      "examples/experiments/bm25_search.yaml",
      { ...retriever, ...BENCH(-1, `${tmp}/q_bm25.jsonl`) },
      "search",
    );
    const r = await cli("run", "examples/experiments/bm25_search.yaml", "--param", pSearch);
    expect(r.err).not.toContain("failed");
    expect(r.code).toBe(0);
    const [searchFile] = memoryFiles(/_bm25_search_/);
    const memory = readMemory(searchFile!);
    expect(memory.map((s) => s.step)).toEqual([
      "benchmark.get_data",
      "retriever.retriever_init",
      "retriever.bm25_search",
    ]);
    const ret = memory[2]!.memory.memory_ret_psg as string[][];
    const docs = corpus();
    expect(ret).toHaveLength(5);
    for (const list of ret) {
      expect(list).toHaveLength(2);
      expect(new Set(list).size).toBe(2);
      for (const p of list) expect(docs).toContain(p);
    }
    // top-1 = corpus records 2, 3, 4, 5, 1 (1-based)
    expect(ret.map((l) => docs.indexOf(l[0]!) + 1)).toEqual([2, 3, 4, 5, 1]);
    expect(ret.map((l) => l[0]!.slice(0, 20))).toEqual([
      "Arrowhead Stadium 19",
      "1971 Kansas City Chi",
      "History of the Kansa",
      "Multi-purpose Replac",
      "Truman Sports Comple",
    ]);
  });
});

describe("P5 — loop + branch with early exit (search_r1.yaml)", () => {
  it("searches once for the first question, answers both, exits the loop in iteration 2", async () => {
    // §9.0: the dense index is built first with corpus_index.yaml and the DENSE block.
    const pIndex = await params("examples/experiments/corpus_index.yaml", DENSE(), "dense");
    const built = await cli("run", "examples/experiments/corpus_index.yaml", "--param", pIndex);
    expect(built.err).not.toMatch(/Error|failed/);
    expect(built.code).toBe(0);

    llm.setScript(
      script([
        ["</search>\n<information>", "<answer> December 1972 </answer><|im_end|>"],
        ["on the moon", "<think>need to search</think><search> first moon landing </search>"],
        ["brother lyrics", "<answer> Bobby Scott </answer><|im_end|>"],
      ]),
    );
    const p = await params("examples/experiments/search_r1.yaml", {
      ...BENCH(2),
      ...GEN(),
      ...DENSE(),
      prompt: { template: "prompt/search_r1_init.jinja" },
      evaluation: { save_path: `${tmp}/eval/evaluate_results.json` },
    });
    const r = await cli("run", "examples/experiments/search_r1.yaml", "--param", p);
    expect(r.err).not.toContain("failed");
    expect(r.code).toBe(0);
    const [file] = memoryFiles(/^memory_nq_search_r1_\d{8}_\d{6}\.json$/);
    const memory = readMemory(file!);
    expect(memory.map((s) => s.step)).toEqual([
      "benchmark.get_data",
      "retriever.retriever_init",
      "generation.generation_init",
      "prompt.qa_boxed",
      "generation.generate",
      "router.search_r1_check",
      "custom.search_r1_query_extract",
      "retriever.retriever_search",
      "prompt.search_r1_gen",
      "generation.generate",
      "router.search_r1_check",
      "evaluation.evaluate",
    ]);
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests.every((q) => q.rule !== 3)).toBe(true); // never NO_RULE
    const at = (step: string, n = 0) => memory.filter((s) => s.step === step)[n]!.memory;
    expect(at("custom.search_r1_query_extract").memory_extract_query_list).toEqual(["first moon landing?", "<UNSET>"]);
    const ret = at("retriever.retriever_search").memory_ret_psg as unknown[];
    const docs = corpus();
    expect((ret[0] as string[]).length).toBe(3);
    for (const p of ret[0] as string[]) expect(docs).toContain(p);
    expect(ret[1]).toBe("<UNSET>");
    expect((at("prompt.search_r1_gen").memory_prompt_ls as unknown[])[1]).toBe("<UNSET>");
    expect(at("router.search_r1_check", 1).memory_ans_ls).toEqual([
      "<answer> December 1972 </answer><|im_end|>",
      "<answer> Bobby Scott </answer><|im_end|>",
    ]);
    const evalRes = at("evaluation.evaluate").memory_eval_res as Record<string, number[]>;
    expect(evalRes.acc).toEqual([1, 1]);
    expect(evalRes.em).toEqual([0, 0]);
  });
});

describe("P6 — demo-mode streaming events (examples/demos/LLM.yaml)", () => {
  it("emits exactly the spec's events, one streamed request with the committed system prompt", async () => {
    writeFileSync(
      path.join(tmp, "one.jsonl"),
      JSON.stringify({
        id: 0,
        question: "when was the last time anyone was on the moon",
        golden_answers: [],
        meta_data: {},
      }),
    );
    const committed = parse(readFileSync(path.join(dir, "examples/demos/parameter/LLM_parameter.yaml"), "utf8"));
    const p = path.join(tmp, "p6.yaml");
    writeFileSync(
      p,
      stringify(
        merge(committed, {
          benchmark: { benchmark: { path: `${tmp}/one.jsonl` } },
          generation: { backend_configs: { openai: { base_url: llm.openaiBaseURL, model_name: "scripted" } } },
        }),
      ),
    );
    llm.setScript(script([["on the moon", ["Decem", "ber ", "1972"]]]));
    const events: PipelineEvent[] = [];
    const result = await runPipeline("examples/demos/LLM.yaml", {
      cwd: dir,
      param: p,
      demo: true,
      onEvent: (e) => events.push(e),
    });
    const final = events.pop()!;
    expect(
      events.map((e) =>
        e.type === "step_end" && e.name === "generation.generation_init" ? { ...e, output: "<any>" } : e,
      ),
    ).toEqual([
      { type: "step_start", name: "benchmark.get_data", depth: 0 },
      { type: "step_end", name: "benchmark.get_data", output: "Output Keys: ['gt_ls', 'q_ls']" },
      { type: "step_start", name: "prompt.qa_boxed", depth: 0 },
      { type: "step_end", name: "prompt.qa_boxed", output: "Step completed." },
      { type: "step_start", name: "generation.generation_init", depth: 0 },
      { type: "step_end", name: "generation.generation_init", output: "<any>" },
      { type: "step_start", name: "generation.generate", depth: 0 },
      { type: "token", content: "Decem", step: "generation.generate", is_final: true },
      { type: "token", content: "ber ", step: "generation.generate", is_final: true },
      { type: "token", content: "1972", step: "generation.generate", is_final: true },
      { type: "step_end", name: "generation.generate", output: "Generated:\nDecember 1972" },
    ]);
    expect(final).toMatchObject({
      type: "final",
      data: { status: "succeeded", answer: "December 1972", is_first_turn: true },
    });
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.body.stream).toBe(true);
    expect(llm.requests[0]!.body.messages).toEqual([
      { role: "system", content: "请记住，你是一个专业的UltraRAG问答助手。请一定记住使用中文回答问题。" },
      {
        role: "user",
        content: "Please answer the following question.\n\nQuestion: when was the last time anyone was on the moon",
      },
    ]);
    expect(result.snapshots.find((s) => s.step === "generation.generate")!.memory).toEqual({
      memory_ans_ls: ["December 1972"],
    });
  });
});
