/**
 * Files a pipeline run from the web app may touch (issue: hole 1). Every built-in tool that takes a
 * path gets hostile values — an absolute path, `../`, a symlink inside the run's folder that leads
 * out, a folder link — for each of its path inputs, exactly as a `$name` indirection, an `input:`
 * remapping or an earlier step would hand them over (the tool sees only the value). Reads must be
 * refused naming the parameter, never echoing a byte of the file; writes must create nothing outside
 * the run's folder. Then the whole route once through the engine: `$q_x` / `$out_x` parameters under
 * names that do not look like paths.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPipeline } from "../../server/pipelines/engine/run.ts";
import { BUILTIN_SERVERS } from "../../server/pipelines/servers/builtins.ts";
import type { CallContext, PipelineServer } from "../../server/pipelines/servers/contract.ts";

const CANARY = `ARGUS-CANARY-${Math.random().toString(36).slice(2)}`;

let root: string;
let run: string;
let outside: string;
let secret: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "argus-pipefiles-"));
  run = path.join(root, "run");
  outside = path.join(root, "outside");
  mkdirSync(run);
  mkdirSync(outside);
  secret = path.join(outside, "secret.txt");
  // Shaped like each reader's input, so a reader that got this far would quote it in its error.
  writeFileSync(secret, `${CANARY} 0 doc 1\n{"contents": "${CANARY}"}\n`);
  mkdirSync(path.join(outside, "model"));
  writeFileSync(path.join(outside, "model", "config.json"), `{"canary": "${CANARY}"}`);
  symlinkSync(secret, path.join(run, "link.txt"));
  symlinkSync(outside, path.join(run, "linkdir"));
  symlinkSync(path.join(outside, "dangling-target.json"), path.join(run, "dangling.json"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const readValues = () => [
  secret,
  "../outside/secret.txt",
  "link.txt",
  "linkdir/secret.txt",
  `${run}/../outside/secret.txt`,
];
const writeValues = () => [
  path.join(outside, "w1", "out.json"),
  "../outside/w2/out.json",
  "linkdir/w3/out.json",
  "dangling.json",
];

/** The context a web-app run's servers get (server/pipelines/runs.ts): no fileAccess, no operatorEnv. */
const appContext = (): CallContext => ({ cwd: run });

async function call(server: string, kind: "tool" | "prompt", tool: string, args: Record<string, unknown>) {
  const s: PipelineServer = BUILTIN_SERVERS[server]!();
  try {
    return await s.call(kind, tool, args, appContext());
  } finally {
    await s.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, "the call must fail").toBeInstanceOf(Error);
  return (err as Error).message;
}

const retrieverInit = { backend: "bm25", index_backend: "faiss", corpus_path: "corpus.jsonl" };

/** Each tool's path inputs that are read: [server, kind, tool, parameter, args with the value]. */
const READS: [string, "tool" | "prompt", string, string, (v: string) => Record<string, unknown>][] = [
  ["benchmark", "tool", "get_data", "benchmark.path", (v) => ({ benchmark: { path: v, key_map: { q_ls: "q" } } })],
  [
    "evaluation",
    "tool",
    "evaluate_trec",
    "qrels_path",
    (v) => ({ qrels_path: v, run_path: "run.txt", metrics: ["map"], ks: [1], save_path: "out.json" }),
  ],
  [
    "evaluation",
    "tool",
    "evaluate_trec",
    "run_path",
    (v) => ({ qrels_path: "qrels.txt", run_path: v, metrics: ["map"], ks: [1], save_path: "out.json" }),
  ],
  [
    "evaluation",
    "tool",
    "evaluate_trec_pvalue",
    "qrels_path",
    (v) => ({
      qrels_path: v,
      base_path: "run.txt",
      run_path: "run.txt",
      metrics: ["map"],
      ks: [1],
      n_resamples: 10,
      save_path: "o.json",
    }),
  ],
  [
    "corpus",
    "tool",
    "build_text_corpus",
    "parse_file_path",
    (v) => ({ parse_file_path: v, text_corpus_save_path: "c.jsonl" }),
  ],
  [
    "corpus",
    "tool",
    "chunk_documents",
    "raw_chunk_path",
    (v) => ({
      raw_chunk_path: v,
      chunk_path: "chunks.jsonl",
      chunk_backend: "sentence",
      chunk_size: 100,
      use_title: false,
    }),
  ],
  ["prompt", "prompt", "qa_boxed", "template", (v) => ({ q_ls: ["q"], template: v })],
  [
    "generation",
    "tool",
    "multimodal_generate",
    "multimodal_path[0]",
    (v) => ({ prompt_ls: ["describe"], multimodal_path: [v], system_prompt: "" }),
  ],
];

describe("reads outside the run's folder are refused, naming the parameter, quoting nothing", () => {
  beforeAll(() => {
    // Inputs the tools need besides the hostile one, inside the run's folder.
    writeFileSync(path.join(run, "run.txt"), "q1 Q0 d1 1 1.0 r\n");
    writeFileSync(path.join(run, "qrels.txt"), "q1 0 d1 1\n");
  });

  for (const [server, kind, tool, param, args] of READS) {
    it(`${server}.${tool} ${param}`, async () => {
      for (const value of readValues()) {
        const message = await refusal(call(server, kind, tool, args(value)));
        // multimodal_generate needs a model first; its path check must still come first or fail closed.
        if (tool === "multimodal_generate" && !message.includes(param)) {
          expect(message).not.toContain(CANARY);
          continue;
        }
        expect(message).toContain(`${param} `);
        // The prompt server refuses '..' before resolving (UltraRAG's own rule), in its own words.
        expect(message).toMatch(/outside the run's folder|must not contain '\.\.'/);
        expect(message).not.toContain(CANARY);
      }
    });
  }

  it("retriever.retriever_init corpus_path / model folder, retriever_index corpus_path", async () => {
    for (const value of readValues()) {
      for (const args of [
        { ...retrieverInit, corpus_path: value },
        { ...retrieverInit, backend: "sentence_transformers", model_name_or_path: value },
      ]) {
        const message = await refusal(call("retriever", "tool", "retriever_init", args));
        expect(message).toContain("outside the run's folder");
        expect(message).not.toContain(CANARY);
      }
    }
  });
});

describe("writes outside the run's folder are refused and create nothing there", () => {
  const WRITES: [string, string, string, (v: string) => Record<string, unknown>][] = [
    ["evaluation", "evaluate", "save_path", (v) => ({ pred_ls: ["a"], gt_ls: [["a"]], metrics: ["em"], save_path: v })],
    [
      "corpus",
      "build_text_corpus",
      "text_corpus_save_path",
      (v) => ({ parse_file_path: "doc.txt", text_corpus_save_path: v }),
    ],
    [
      "corpus",
      "chunk_documents",
      "chunk_path",
      (v) => ({
        raw_chunk_path: "c.jsonl",
        chunk_path: v,
        chunk_backend: "sentence",
        chunk_size: 100,
        use_title: false,
      }),
    ],
  ];
  beforeAll(() => {
    writeFileSync(path.join(run, "doc.txt"), "Some text to index.\n");
    writeFileSync(path.join(run, "c.jsonl"), '{"id": "1", "title": "t", "contents": "Some text."}\n');
  });

  for (const [server, tool, param, args] of WRITES) {
    it(`${server}.${tool} ${param}`, async () => {
      for (const value of writeValues()) {
        const message = await refusal(call(server, "tool", tool, args(value)));
        expect(message).toContain(param);
        expect(message).toContain("outside the run's folder");
      }
      expect(readdirSync(outside).sort()).toEqual(["model", "secret.txt"]);
    });
  }

  it("retriever index folders (bm25 save_path, faiss index_path, milvus uri) and embedding_path", async () => {
    for (const value of writeValues()) {
      for (const args of [
        { ...retrieverInit, backend_configs: { bm25: { save_path: value } } },
        { ...retrieverInit, index_backend_configs: { faiss: { index_path: value } } },
        { ...retrieverInit, index_backend: "milvus", index_backend_configs: { milvus: { uri: value } } },
      ]) {
        const message = await refusal(call("retriever", "tool", "retriever_init", args));
        expect(message).toContain("outside the run's folder");
      }
    }
    expect(readdirSync(outside).sort()).toEqual(["model", "secret.txt"]);
  });
});

describe("the whole route: `$name` parameters under names that do not look like paths", () => {
  it("evaluate_trec with qrels_path: $q_x and save_path: $out_x is refused, nothing read or written outside", async () => {
    writeFileSync(
      path.join(run, "p.yaml"),
      [
        "servers:",
        "  evaluation: servers/evaluation",
        "pipeline:",
        "- evaluation.evaluate_trec:",
        "    input:",
        "      qrels_path: $q_x",
        "      run_path: $r_x",
        "      save_path: $out_x",
        "      metrics: $metrics",
        "      ks: $ks",
        "",
      ].join("\n"),
    );
    writeFileSync(
      path.join(run, "params.yaml"),
      [
        "evaluation:",
        `  q_x: ${secret}`,
        "  r_x: run.txt",
        `  out_x: ${path.join(outside, "via-engine", "x.json")}`,
        "  metrics: [map]",
        "  ks: [1]",
        "",
      ].join("\n"),
    );
    const err = await runPipeline("p.yaml", { cwd: run, param: "params.yaml", context: {} }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain("qrels_path");
    expect(err?.message).toContain("outside the run's folder");
    expect(err?.message).not.toContain(CANARY);
    expect(existsSync(path.join(outside, "via-engine"))).toBe(false);
  });
});
