/**
 * Vanilla RAG at scale (issue 15 targets): a synthetic 100k-passage corpus and 1,000 questions, BM25
 * and hash-dense retrieval through the retriever server, the scripted model answering at once. Reports
 * index build times, Argus's time per question excluding the model (every step but `generate`, over
 * the questions), the same retrieval done by direct LanceDB calls in the same run (one query at a
 * time and four at once), peak RSS (and per phase), and the machine's load average.
 * Targets: ≤ 5 ms per question of engine + retrieval overhead, ≤ 1.5 GiB peak.
 * BENCH_RAG_PASSAGES / BENCH_RAG_QUESTIONS shrink it for a quick look.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { runPipeline } from "../server/pipelines/engine/run.ts";
import type { PipelineEvent } from "../server/pipelines/engine/events.ts";
import { PythonRandom } from "../server/pipelines/servers/python-random.ts";
import { directSearch } from "./_pipelines-rag-direct.ts";
import { corpus, retriever, writeParams, writeWorkspace, yaml } from "./_pipelines-rag-files.ts";

const PASSAGES = Number(process.env.BENCH_RAG_PASSAGES ?? 100_000);
const QUESTIONS = Number(process.env.BENCH_RAG_QUESTIONS ?? 1_000);

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
    const { passages, questions } = corpus(new PythonRandom(7), PASSAGES, QUESTIONS);
    writeWorkspace(dir, { passages, questions });
    const params = (name: string, data: Record<string, unknown>) => writeParams(dir, name, data);

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

    // The same retrieval by direct LanceDB calls, in the same process.
    const direct = await directSearch(dir, questions);
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
