/**
 * servers/retriever beyond checks P4/P5 (conformance-rag.test.ts): dense search never returns more
 * passages than the corpus holds (Q10 fixed), BM25's zero-score padding, missing indexes and corpora,
 * the deployed retriever over HTTP, web search without a key, and the scores Argus returns beside
 * the spec's passages (`ret_scores`, kept only by a step whose output map names it).
 */
import { once } from "node:events";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import type { CallContext } from "./contract.ts";
import { retriever } from "./retriever.ts";

let dir: string;
let cleanup: () => void;
const CORPUS = ["The cat sat on the mat.", "Dogs bark at night.", "Stock markets fell sharply today."];
beforeEach(() => {
  ({ dir, cleanup } = tempDir({
    "corpus.jsonl": CORPUS.map((contents, id) => JSON.stringify({ id, contents })).join("\n"),
    "empty.jsonl": "\n",
  }));
});
afterEach(() => cleanup());

const INIT = (over: Record<string, unknown> = {}) => ({
  model_name_or_path: "not-a-folder",
  backend_configs: { bm25: { lang: "en", tokenizer: "auto", save_path: "index/bm25" } },
  batch_size: 16,
  corpus_path: "corpus.jsonl",
  gpu_ids: null,
  is_multimodal: false,
  backend: "hash",
  index_backend: "faiss",
  index_backend_configs: { faiss: { index_path: "index/dense" } },
  is_demo: false,
  collection_name: "wiki",
  ...over,
});

async function opened(over: Record<string, unknown> = {}, notices: string[] = []) {
  const server = retriever();
  const ctx: CallContext = { cwd: dir, notice: (m) => notices.push(m) };
  await server.call("tool", "retriever_init", INIT(over), ctx);
  return { server, ctx };
}

describe("dense retrieval (hash embedder on LanceDB)", () => {
  it("embeds to .npy, indexes, and returns at most the corpus size even when top_k is larger (Q10 fixed)", async () => {
    const { server, ctx } = await opened();
    await server.call(
      "tool",
      "retriever_embed",
      { embedding_path: "emb/e.npy", overwrite: false, is_multimodal: false },
      ctx,
    );
    await server.call(
      "tool",
      "retriever_index",
      { embedding_path: "emb/e.npy", overwrite: false, collection_name: "wiki", corpus_path: "corpus.jsonl" },
      ctx,
    );
    const { ret_psg } = (await server.call(
      "tool",
      "retriever_search",
      { query_list: ["cat on a mat", "stock markets"], top_k: 10, query_instruction: "", collection_name: "wiki" },
      ctx,
    )) as { ret_psg: string[][] };
    expect(ret_psg).toHaveLength(2);
    expect(ret_psg[0]).toHaveLength(3);
    expect(new Set(ret_psg[0]).size).toBe(3);
    expect(ret_psg[0]![0]).toBe(CORPUS[0]);
    expect(ret_psg[1]![0]).toBe(CORPUS[2]);
  });

  it("searches the hash embedder's sparse vectors in process, ranking as LanceDB's exact search does", async () => {
    const { server, ctx } = await opened();
    const emb = { embedding_path: "emb/e.npy", overwrite: false, is_multimodal: false };
    await server.call("tool", "retriever_embed", emb, ctx);
    await server.call("tool", "retriever_index", { ...emb, collection_name: "wiki", corpus_path: "corpus.jsonl" }, ctx);
    const postings = path.join(dir, "index/dense/corpus.postings");
    expect(existsSync(postings)).toBe(true);
    const args = { query_list: ["cat mat", "dogs night", "markets", "zebra"], top_k: 2, query_instruction: "" };
    const inProcess = await server.call("tool", "retriever_search", args, ctx);
    rmSync(postings);
    const lance = await server.call("tool", "retriever_search", args, ctx);
    // The same passages; the scores agree to float precision (ret_scores, below).
    expect(inProcess.ret_psg).toEqual(lance.ret_psg);
    expect((inProcess as { ret_psg: string[][] }).ret_psg[1]![0]).toBe(CORPUS[1]);
  });

  it("says which step to run when the index or the embeddings are missing", async () => {
    const { server, ctx } = await opened();
    await expect(
      server.call("tool", "retriever_search", { query_list: ["x"], top_k: 2, query_instruction: "" }, ctx),
    ).rejects.toThrow(/no index at .*index\/dense; run retriever.retriever_index first/);
    await expect(
      server.call("tool", "retriever_index", { embedding_path: "nope.npy", overwrite: false }, ctx),
    ).rejects.toThrow("nope.npy does not exist; run retriever.retriever_embed first");
    await expect(
      server.call("tool", "retriever_search", { query_list: ["x"], top_k: 0, query_instruction: "" }, ctx),
    ).rejects.toThrow("top_k must be a whole number from 1 to 10,000");
  });

  it("a non-folder model falls back to the local embedder with a notice; project memory of a new user is empty", async () => {
    const notices: string[] = [];
    const { server, ctx } = await opened({ backend: "sentence_transformers" }, notices);
    expect(notices.join("\n")).toMatch(/not-a-folder is not a local model folder .* using Argus's local embedder/);
    await server.call(
      "tool",
      "retriever_embed",
      { embedding_path: "emb/l.npy", overwrite: false, is_multimodal: false },
      ctx,
    );
    const sidecar = JSON.parse(readFileSync(path.join(dir, "emb/l.npy.embedder.json"), "utf8")) as {
      record: { name: string };
    };
    expect(sidecar.record.name).toBe("local");
    await server.call(
      "tool",
      "retriever_index",
      { embedding_path: "emb/l.npy", overwrite: false, collection_name: "wiki" },
      ctx,
    );
    const { ret_psg } = (await server.call(
      "tool",
      "retriever_search",
      { query_list: ["stock markets"], top_k: 1, query_instruction: "", collection_name: "wiki" },
      ctx,
    )) as { ret_psg: string[][] };
    expect(ret_psg).toEqual([[CORPUS[2]]]);
    expect(notices.join("\n")).toMatch(/index_backend faiss runs on LanceDB/);
    const out = await server.call(
      "tool",
      "retriever_project_memory_search",
      { query_list: ["a", "b"], top_k: 3, query_instruction: "", current_user_id: "ada" },
      ctx,
    );
    expect(out).toEqual({ project_memory_content: [[], []] });
  });
});

describe("BM25", () => {
  it("pads with zero-score passages in corpus order up to top_k, and refuses a missing index or empty corpus", async () => {
    const { server, ctx } = await opened({ backend: "bm25" });
    await expect(server.call("tool", "bm25_search", { query_list: ["cat"], top_k: 2 }, ctx)).rejects.toThrow(
      /no BM25 index at .*index\/bm25; run retriever.bm25_index first/,
    );
    await server.call("tool", "bm25_index", { overwrite: false }, ctx);
    const { ret_psg } = (await server.call(
      "tool",
      "bm25_search",
      { query_list: ["dogs", "the of"], top_k: 2 },
      ctx,
    )) as {
      ret_psg: string[][];
    };
    expect(ret_psg).toEqual([
      [CORPUS[1], CORPUS[0]],
      [CORPUS[0], CORPUS[1]],
    ]);
    const empty = retriever();
    await expect(
      empty.call("tool", "retriever_init", INIT({ backend: "bm25", corpus_path: "empty.jsonl" }), ctx),
    ).rejects.toThrow("corpus file");
  });
});

describe("HTTP retrieval", () => {
  it("retriever_deploy_search posts to <url>/search and returns its ret_psg", async () => {
    const bodies: unknown[] = [];
    const http = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        bodies.push({ path: req.url, body: JSON.parse(body) as unknown });
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ ret_psg: [["p1", "p2"]] }));
      });
    });
    http.listen(0, "127.0.0.1");
    await once(http, "listening");
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const out = await retriever().call(
        "tool",
        "retriever_deploy_search",
        { retriever_url: url, query_list: ["q"], top_k: 2, query_instruction: "" },
        { cwd: dir },
      );
      expect(out).toEqual({ ret_psg: [["p1", "p2"]] });
      expect(bodies).toEqual([{ path: "/search", body: { query_list: ["q"], top_k: 2, query_instruction: "" } }]);
    } finally {
      http.close();
    }
    await expect(
      retriever().call(
        "tool",
        "retriever_deploy_search",
        { retriever_url: "http://127.0.0.1:1", query_list: ["q"], top_k: 2, query_instruction: "" },
        { cwd: dir },
      ),
    ).rejects.toThrow("is the retriever at retriever_url running?");
  });

  it("web search without a key fails at once, naming the parameter to set", async () => {
    const saved = process.env.TAVILY_API_KEY;
    delete process.env.TAVILY_API_KEY;
    try {
      await expect(
        retriever().call(
          "tool",
          "retriever_websearch",
          {
            query_list: ["q"],
            top_k: 3,
            retrieve_thread_num: 1,
            websearch_backend: "tavily",
            websearch_backend_configs: { tavily: { api_key: "" } },
          },
          { cwd: dir },
        ),
      ).rejects.toThrow(
        "retriever.retriever_websearch: tavily needs an API key: set websearch_backend_configs.tavily.api_key in the retriever's parameters (or TAVILY_API_KEY in the environment)",
      );
    } finally {
      if (saved !== undefined) process.env.TAVILY_API_KEY = saved;
    }
  });
});

describe("ret_scores beside ret_psg (the spec's retriever returns texts only)", () => {
  const search = { query_list: ["cat on a mat", "stock markets", "zebra"], top_k: 3, query_instruction: "" };
  const expectScored = (out: Record<string, unknown>) => {
    const { ret_psg, ret_scores } = out as { ret_psg: string[][]; ret_scores: number[][] };
    // Parallel to ret_psg, query by query and passage by passage, best first.
    expect(ret_scores.map((l) => l.length)).toEqual(ret_psg.map((l) => l.length));
    for (const list of ret_scores) {
      expect(list.every((s) => Number.isFinite(s))).toBe(true);
      expect(list).toEqual([...list].sort((a, b) => b - a));
    }
    return { ret_psg, ret_scores };
  };

  it("dense search (in-process postings and LanceDB alike) scores each passage, the match above the rest", async () => {
    const { server, ctx } = await opened();
    const emb = { embedding_path: "emb/e.npy", overwrite: false, is_multimodal: false };
    await server.call("tool", "retriever_embed", emb, ctx);
    await server.call("tool", "retriever_index", { ...emb, collection_name: "wiki", corpus_path: "corpus.jsonl" }, ctx);
    const inProcess = expectScored(await server.call("tool", "retriever_search", search, ctx));
    expect(inProcess.ret_psg[0]![0]).toBe(CORPUS[0]);
    expect(inProcess.ret_scores[0]![0]).toBeGreaterThan(inProcess.ret_scores[0]![1]!);
    rmSync(path.join(dir, "index/dense/corpus.postings"));
    const lance = expectScored(await server.call("tool", "retriever_search", search, ctx));
    expect(lance.ret_psg).toEqual(inProcess.ret_psg);
    for (const [i, list] of lance.ret_scores.entries())
      for (const [j, s] of list.entries()) expect(s).toBeCloseTo(inProcess.ret_scores[i]![j]!, 4);
    const batch = (await server.call(
      "tool",
      "retriever_batch_search",
      { batch_query_list: [search.query_list, []], top_k: 3, query_instruction: "" },
      ctx,
    )) as { ret_psg_ls: string[][][]; ret_scores_ls: number[][][] };
    expect(batch.ret_psg_ls).toEqual([inProcess.ret_psg, []]);
    expect(batch.ret_scores_ls[0]!.map((l) => l.length)).toEqual([3, 3, 3]);
    expect(batch.ret_scores_ls[1]).toEqual([]);
  });

  it("bm25_search: BM25 scores, and 0 for the passages bm25s pads top_k with", async () => {
    const { server, ctx } = await opened({ backend: "bm25" });
    await server.call("tool", "bm25_index", { overwrite: false }, ctx);
    const { ret_psg, ret_scores } = expectScored(
      await server.call("tool", "bm25_search", { query_list: ["cat mat", "zebra"], top_k: 3 }, ctx),
    );
    expect(ret_psg[0]![0]).toBe(CORPUS[0]);
    expect(ret_scores[0]![0]).toBeGreaterThan(0);
    expect(ret_scores[0]!.slice(1)).toEqual([0, 0]);
    expect(ret_scores[1]).toEqual([0, 0, 0]);
  });

  it("a pipeline step keeps ret_scores when its output map names it; the spec's output stores ret_psg only", async () => {
    const { runPipeline } = await import("../engine/run.ts");
    const { cpSync, writeFileSync } = await import("node:fs");
    const { repoRoot } = await import("../dsl/test-support.ts");
    cpSync(path.join(repoRoot, "pipelines"), dir, { recursive: true });
    const steps = (search: string) =>
      [
        "servers:",
        "  benchmark: servers/benchmark",
        "  retriever: servers/retriever",
        "pipeline:",
        "- benchmark.get_data",
        "- retriever.retriever_init",
        "- retriever.bm25_index",
        search,
      ].join("\n");
    writeFileSync(
      path.join(dir, "scored.yaml"),
      steps("- retriever.bm25_search:\n    output: {ret_psg: ret_psg, ret_scores: ret_scores}\n"),
    );
    writeFileSync(path.join(dir, "plain.yaml"), steps("- retriever.bm25_search\n"));
    const parameter = path.join(dir, "parameter");
    cpSync(path.join(parameter, "bm25_search_parameter.yaml"), path.join(parameter, "scored_parameter.yaml"));
    cpSync(path.join(parameter, "bm25_search_parameter.yaml"), path.join(parameter, "plain_parameter.yaml"));
    const scored = await runPipeline("scored.yaml", { cwd: dir, writeMemory: false });
    const last = scored.snapshots.at(-1)!.memory;
    const psg = last.memory_ret_psg as string[][];
    const scores = last.memory_ret_scores as number[][];
    expect(scores.map((l) => l.length)).toEqual(psg.map((l) => l.length));
    expect(scores[0]![0]).toBeGreaterThan(0);
    const plain = await runPipeline("plain.yaml", { cwd: dir, writeMemory: false });
    expect(Object.keys(plain.snapshots.at(-1)!.memory)).toEqual(["memory_ret_psg"]);
  });
});
