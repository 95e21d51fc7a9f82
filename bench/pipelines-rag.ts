/**
 * Vanilla RAG at scale (issue 15 targets): a synthetic 100k-passage corpus and 1,000 questions, BM25
 * and hash-dense retrieval through the retriever server, the scripted model answering at once. Reports
 * index build times, Argus's time per question excluding the model (every step but `generate`, over
 * the questions), the same retrieval done by direct LanceDB calls in the same run (one query at a
 * time and four at once), peak RSS (and per phase), and the machine's load average.
 * Targets: ≤ 5 ms per question of engine + retrieval overhead, ≤ 1.5 GiB peak.
 * BENCH_RAG_PASSAGES / BENCH_RAG_QUESTIONS shrink it for a quick look.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { embedderForIndex } from "../server/retrieval/embed/from-record.ts";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { runPipeline } from "../server/pipelines/engine/run.ts";
import type { PipelineEvent } from "../server/pipelines/engine/events.ts";
import { bm25Tokenizer } from "../server/pipelines/servers/bm25-text.ts";
import { connect, openChunkIndex } from "../server/retrieval/store/index.ts";
import { PythonRandom } from "../server/pipelines/servers/python-random.ts";

const PASSAGES = Number(process.env.BENCH_RAG_PASSAGES ?? 100_000);
const QUESTIONS = Number(process.env.BENCH_RAG_QUESTIONS ?? 1_000);

/** Zipf-ish words from a 20k vocabulary: a few very common, a long tail (like real text). */
function corpus(rand: PythonRandom): { passages: string[]; questions: string[] } {
  const vocab = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocab[Math.floor(vocab.length ** rand.random()) - 1]!;
  const passages = Array.from({ length: PASSAGES }, () => Array.from({ length: 60 }, word).join(" "));
  const questions = Array.from({ length: QUESTIONS }, () => {
    const p = passages[Math.floor(rand.random() * passages.length)]!.split(" ");
    const at = Math.floor(rand.random() * 50);
    return p.slice(at, at + 6).join(" ");
  });
  return { passages, questions };
}

const yaml = (steps: string[], servers: string[]) =>
  `servers:\n${servers.map((s) => `  ${s}: servers/${s}`).join("\n")}\npipeline:\n${steps.map((s) => `- ${s}`).join("\n")}\n`;

/** Wall time per step name, summed, from the run's events. */
function stepTimer() {
  const spent = new Map<string, number>();
  let current: { name: string; at: number } | undefined;
  return {
    onEvent: (e: PipelineEvent) => {
      if (e.type === "step_start" && e.name.includes(".")) current = { name: e.name, at: performance.now() };
      else if (e.type === "step_end" && current)
        spent.set(current.name, (spent.get(current.name) ?? 0) + performance.now() - current.at);
    },
    spent,
  };
}

/** Peak RSS per phase, sampled every 20 ms (process.resourceUsage().maxRSS is only the whole run's). */
function rssByPhase() {
  const peaks: Record<string, number> = {};
  let phase = "setup";
  const timer = setInterval(() => {
    const mib = Math.round(process.memoryUsage().rss / 2 ** 20);
    if (mib > (peaks[phase] ?? 0)) peaks[phase] = mib;
  }, 20);
  timer.unref();
  return { peaks, set: (p: string) => (phase = p), stop: () => clearInterval(timer) };
}

export async function measureRag() {
  const dir = mkdtempSync(path.join(tmpdir(), "argus-bench-rag-"));
  const rss = rssByPhase();
  const loadAtStart = loadavg().map((l) => Math.round(l * 10) / 10);
  const llm = await startScriptedServer({ script: { rules: [{ text: "\\boxed{w1}" }] } });
  try {
    mkdirSync(path.join(dir, "data"));
    mkdirSync(path.join(dir, "parameter"));
    mkdirSync(path.join(dir, "prompt"));
    const { passages, questions } = corpus(new PythonRandom(7));
    writeFileSync(
      path.join(dir, "data/corpus.jsonl"),
      passages.map((contents, id) => JSON.stringify({ id, contents })).join("\n"),
    );
    writeFileSync(
      path.join(dir, "data/q.jsonl"),
      questions.map((question, id) => JSON.stringify({ id, question, golden_answers: ["w1"] })).join("\n"),
    );
    writeFileSync(path.join(dir, "prompt/rag.jinja"), "Passages:\n{{documents}}\nQuestion: {{question}}");
    const retriever = (backend: string) => ({
      backend,
      model_name_or_path: "hash",
      backend_configs: { bm25: { lang: "en", tokenizer: "auto", save_path: "index/bm25" } },
      corpus_path: "data/corpus.jsonl",
      embedding_path: "index/emb.npy",
      index_backend: "faiss",
      index_backend_configs: { faiss: { index_path: "index/dense" } },
      top_k: 5,
      overwrite: false,
      batch_size: 16,
      gpu_ids: null,
      is_multimodal: false,
      is_demo: false,
      collection_name: "bench",
      query_instruction: "",
    });
    const params = (name: string, data: Record<string, unknown>) =>
      writeFileSync(path.join(dir, "parameter", `${name}_parameter.yaml`), JSON.stringify(data));

    // Index builds.
    writeFileSync(
      path.join(dir, "bm25_index.yaml"),
      yaml(["retriever.retriever_init", "retriever.bm25_index"], ["retriever"]),
    );
    params("bm25_index", { retriever: retriever("bm25") });
    rss.set("BM25 index build");
    let t = performance.now();
    await runPipeline("bm25_index.yaml", { cwd: dir, writeMemory: false });
    const bm25BuildMs = performance.now() - t;
    writeFileSync(
      path.join(dir, "dense_index.yaml"),
      yaml(["retriever.retriever_init", "retriever.retriever_embed", "retriever.retriever_index"], ["retriever"]),
    );
    params("dense_index", { retriever: retriever("hash") });
    rss.set("hash-dense index build");
    t = performance.now();
    await runPipeline("dense_index.yaml", { cwd: dir, writeMemory: false });
    const denseBuildMs = performance.now() - t;

    // Vanilla RAG over every question, each retrieval kind.
    const generation = {
      backend: "openai",
      backend_configs: {
        openai: { model_name: "scripted", base_url: llm.openaiBaseURL, api_key: "k", concurrency: 8, retries: 1 },
      },
      sampling_params: { temperature: 0, max_tokens: 64 },
      extra_params: {},
      system_prompt: "",
    };
    const benchmark = {
      benchmark: {
        name: "bench",
        path: "data/q.jsonl",
        key_map: { q_ls: "question", gt_ls: "golden_answers" },
        limit: -1,
      },
    };
    const servers = ["benchmark", "retriever", "prompt", "generation", "custom", "evaluation"];
    const figures: Record<string, unknown> = {};
    for (const [kind, search, backend] of [
      ["bm25", "retriever.bm25_search", "bm25"],
      ["hash-dense", "retriever.retriever_search", "hash"],
    ] as const) {
      const file = `rag_${kind}.yaml`;
      writeFileSync(
        path.join(dir, file),
        yaml(
          [
            "benchmark.get_data",
            "retriever.retriever_init",
            search,
            "generation.generation_init",
            "prompt.qa_rag_boxed",
            "generation.generate",
            "custom.output_extract_from_boxed",
            "evaluation.evaluate",
          ],
          servers,
        ),
      );
      params(`rag_${kind}`, {
        benchmark,
        retriever: retriever(backend),
        prompt: { template: "prompt/rag.jinja" },
        generation,
        custom: {},
        evaluation: { metrics: ["acc", "f1"], save_path: "output/eval.json" },
      });
      const timer = stepTimer();
      rss.set(`vanilla RAG, ${kind}`);
      t = performance.now();
      await runPipeline(file, { cwd: dir, onEvent: timer.onEvent });
      const total = performance.now() - t;
      const model = timer.spent.get("generation.generate") ?? 0;
      const retrieval = timer.spent.get(search) ?? 0;
      figures[kind] = {
        "run total ms": Math.round(total),
        "model (generate step) ms": Math.round(model),
        "Argus per question excluding the model, ms": round((total - model) / QUESTIONS),
        "retrieval step per question, ms": round(retrieval / QUESTIONS),
        withinTarget: (total - model) / QUESTIONS <= 5,
      };
    }

    // The same retrieval by direct LanceDB calls: one query at a time, and four at once (as the
    // retriever runs them), each on a freshly opened index (as each pipeline run above opened one).
    const words = bm25Tokenizer("en", "auto");
    const direct: Record<string, Record<string, number>> = {};
    for (const [kind, uri, name] of [
      ["bm25", "index/bm25", "bm25"],
      ["hash-dense", "index/dense", "corpus"],
    ] as const) {
      direct[kind] = {};
      for (const concurrency of [1, 4]) {
        const store = await connect(path.join(dir, uri));
        const index = (await openChunkIndex(store, name))!;
        const embedder = kind === "hash-dense" ? embedderForIndex(index.embedder, index.embedderState) : null;
        t = performance.now();
        const one = async (q: string) => {
          if (embedder) await index.vectorTexts((await embedder.embed([q]))[0]!, 5);
          else await index.fullTextTexts(words.tokens(q).join(" "), 5);
        };
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < questions.length) await one(questions[next++]!);
          }),
        );
        direct[kind][concurrency === 1 ? "one at a time" : "4 at once"] = round((performance.now() - t) / QUESTIONS);
        index.close();
        store.close();
      }
    }
    return {
      passages: PASSAGES,
      questions: QUESTIONS,
      "BM25 index build ms (bm25_index)": Math.round(bm25BuildMs),
      "hash-dense index build ms (retriever_embed + retriever_index)": Math.round(denseBuildMs),
      "vanilla RAG": figures,
      "direct LanceDB search per question, ms (same queries, same process)": direct,
      "peak RSS MiB": Math.round(process.resourceUsage().maxRSS / 1024),
      "peak RSS MiB by phase": rss.peaks,
      peakTargetMiB: 1536,
      peakWithinTarget: process.resourceUsage().maxRSS / 1024 <= 1536,
      "load average (1, 5, 15 min) at start and end": {
        start: loadAtStart,
        end: loadavg().map((l) => Math.round(l * 10) / 10),
      },
    };
  } finally {
    rss.stop();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;
