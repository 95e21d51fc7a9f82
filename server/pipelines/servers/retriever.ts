/**
 * servers/retriever (spec §5.2) on LanceDB (server/retrieval/store): dense indexes built from
 * `.npy` embedding files as upstream (retriever_embed → retriever_index → retriever_search), BM25 as
 * LanceDB full text (bm25_index → bm25_search), a per-user project-memory index, a deployed retriever
 * over HTTP and web search (retriever-web.ts). retriever-setup.ts says how UltraRAG's backends map
 * to Argus. Searches return passage texts, best first, at most `top_k` and never more than the
 * corpus holds (quirk Q10 fixed).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Embedder } from "../../retrieval/embed/types.ts";
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError, type ToolArgs } from "./define.ts";
import { mapConcurrent } from "./generation-backend.ts";
import { createNpyWriter, openNpy } from "./npy.ts";
import { loadSparseIndex, sparseTopKScored, writeSparseIndex, type SparseIndex } from "./sparse-vectors.ts";
import { readCorpus, setupRetriever, type RetrieverState } from "./retriever-setup.ts";
import { runFiles } from "./run-files.ts";
import { memoryStoreFor } from "./memory.ts";
import { knowledgeBaseName, searchKnowledgeBase, searchProjectMemory } from "./retriever-app.ts";
import { deploySearch, webSearch } from "./retriever-web.ts";
import type { ChunkIndex } from "../../retrieval/store/index.ts";

type State = { r?: RetrieverState };

/** A retrieved passage and its score: the similarity (dense), BM25 (bm25_search; 0 for bm25s's
 * padding), or for a knowledge base its hits' calibrated relevance, 0–1 (the app's search). */
interface Passage {
  text: string;
  score: number;
}

/**
 * The spec's `ret_psg` (texts, best first) and, parallel to it, `ret_scores`: UltraRAG's retriever
 * returns texts only; a step that wants the scores names them in its output map (extra returned
 * keys are otherwise ignored, spec §4), e.g. `output: {ret_psg: ret_psg, ret_scores: ret_scores}`.
 */
function withScores(found: readonly Passage[][]): { ret_psg: string[][]; ret_scores: number[][] } {
  return {
    ret_psg: found.map((list) => list.map((p) => p.text)),
    ret_scores: found.map((list) => list.map((p) => p.score)),
  };
}

// LanceDB and the embedders load on first use: a process that only lists or builds pipelines (or
// serves another server over MCP) should not pay for them.
const store = () => import("./passage-index.ts");
const embed = async () => ({
  ...(await import("../../retrieval/embed/for-build.ts")),
  ...(await import("../../retrieval/embed/from-record.ts")),
  ...(await import("../../retrieval/embed/types.ts")),
});
const searchLib = () => import("../../retrieval/search.ts");
const BM25_ONLY_NAME = "none";

const EMBED_BATCH = 256;
/** Passages per batch written to a dense index (2,000 × 1,024 floats = 8 MB). */
const INDEX_BATCH = 2_000;
/** Queries searched at once: LanceDB runs each on its own threads, so a few in flight keep every core
 * busy (100k passages, 2 cores: BM25 6.8 → 3.1 ms a query, dense 11.8 → 4.7 ms, from 1 to 4 at once). */
const SEARCH_CONCURRENCY = Math.max(2, Math.min(8, availableParallelism() * 2));

function ready(state: State, tool: string): RetrieverState {
  if (!state.r) throw new ToolError(`retriever.${tool}: run retriever.retriever_init first`);
  return state.r;
}

async function corpus(r: RetrieverState, tool: string): Promise<string[]> {
  r.contents ??= await readCorpus(r.corpusPath, `retriever.${tool}`);
  return r.contents;
}

export function topK(v: unknown, tool: string): number {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 10_000)
    throw new ToolError(`retriever.${tool}: top_k must be a whole number from 1 to 10,000, got ${describe(v)}`);
  return v as number;
}

/** query_list: a list of texts (a single text is one query, as upstream). */
export function queries(args: ToolArgs, name: string, tool: string): string[] {
  return listArg(args, name, `retriever.${tool}`).map((q, i) => {
    if (typeof q === "string") return q;
    throw new ToolError(`retriever.${tool}: query ${i} of \`${name}\` must be text, got ${describe(q)}`);
  });
}

const sidecar = (npy: string) => `${npy}.embedder.json`;
const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function embedAll(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    out.push(...(await embedder.embed(texts.slice(i, i + EMBED_BATCH))));
    await yieldLoop();
  }
  return out;
}

async function retrieverEmbed(args: ToolArgs, ctx: CallContext, state: State) {
  const r = ready(state, "retriever_embed");
  if (r.backend === "bm25") return {};
  if (args.is_multimodal === true)
    throw new ToolError("retriever.retriever_embed: image corpora are not supported by Argus's retriever yet");
  if (typeof args.embedding_path !== "string" || !args.embedding_path.endsWith(".npy"))
    throw new ToolError(
      `retriever.retriever_embed: embedding_path must end in .npy, got ${describe(args.embedding_path)}`,
    );
  const file = runFiles(ctx).write(args.embedding_path, "embedding_path", "retriever.retriever_embed");
  if (existsSync(file) && args.overwrite !== true) {
    ctx.notice?.(`${args.embedding_path} exists; keeping it (set overwrite: true to embed again)`);
    return {};
  }
  const contents = await corpus(r, "retriever_embed");
  const { embedderForFullBuild } = await embed();
  const { embedder, state: fitted } = embedderForFullBuild(await r.embedder(), contents);
  await mkdir(path.dirname(file), { recursive: true });
  // Rows go to the file as they are embedded: the whole matrix is never held in memory.
  const out = await createNpyWriter(file, contents.length, embedder.dims);
  try {
    for (let i = 0; i < contents.length; i += EMBED_BATCH) {
      await out.append(await embedder.embed(contents.slice(i, i + EMBED_BATCH)));
      await yieldLoop();
    }
    await out.finish();
  } catch (err) {
    await out.abort();
    throw err;
  }
  // The vector space (and the hash embedder's fitted IDF) travels with the file, for retriever_index.
  await writeFile(sidecar(file), JSON.stringify({ record: embedder.record(), state: fitted }));
  return {};
}

async function retrieverIndex(args: ToolArgs, ctx: CallContext, state: State) {
  const r = ready(state, "retriever_index");
  if (r.backend === "bm25")
    throw new ToolError("retriever.retriever_index builds a dense index; with backend bm25 use retriever.bm25_index");
  if (typeof args.embedding_path !== "string")
    throw new ToolError("retriever.retriever_index: embedding_path must name the .npy file retriever_embed wrote");
  const file = runFiles(ctx).locate(args.embedding_path, "embedding_path", "retriever.retriever_index");
  if (!existsSync(file))
    throw new ToolError(
      `retriever.retriever_index: ${args.embedding_path} does not exist; run retriever.retriever_embed first`,
    );
  if (!existsSync(sidecar(file)))
    throw new ToolError(
      `retriever.retriever_index: ${args.embedding_path} has no ${path.basename(sidecar(file))} beside it (it was not written by Argus's retriever_embed); run retriever_embed with overwrite: true`,
    );
  const name =
    r.indexBackend === "milvus" ? r.collectionIndex(args.collection_name, "retriever.retriever_index") : r.denseIndex;
  const { withPassageIndex, buildPassageIndex, passageRows } = await store();
  const exists = await withPassageIndex(r.denseUri, name, async (index) => index !== null);
  if (exists && args.overwrite !== true) {
    ctx.notice?.(`the index exists; keeping it (set overwrite: true to rebuild)`);
    return {};
  }
  const meta = JSON.parse(await readFile(sidecar(file), "utf8")) as { record: unknown; state: unknown };
  const record = (await embed()).embedderRecordSchema.parse(meta.record);
  const contents =
    typeof args.corpus_path === "string"
      ? await readCorpus(
          runFiles(ctx).read(args.corpus_path, "corpus_path", "retriever.retriever_index"),
          "retriever.retriever_index",
        )
      : await corpus(r, "retriever_index");
  const npy = await openNpy(file).catch((err: unknown) => {
    throw new ToolError(`retriever.retriever_index: ${err instanceof Error ? err.message : String(err)}`);
  });
  try {
    if (npy.rows !== contents.length || npy.dims !== record.dims)
      throw new ToolError(
        `retriever.retriever_index: ${args.embedding_path} holds ${npy.rows}×${npy.dims} vectors but the corpus has ${contents.length} passages (embedder: ${record.dims} dims); run retriever_embed with overwrite: true`,
      );
    // Rows are made a batch at a time from the file: the matrix is never in memory whole.
    async function* rows() {
      let first = 0;
      for await (const vectors of npy.batches(INDEX_BATCH)) {
        const slice = contents.slice(first, first + vectors.length);
        yield passageRows(slice, (i) => r.tokenizer.tokens(slice[i]!).join(" "), vectors, first);
        first += vectors.length;
      }
    }
    await buildPassageIndex(r.denseUri, name, { embedder: record, embedderState: meta.state, rows: rows() });
  } finally {
    await npy.close();
  }
  // Sparse vectors (the hash embedder's) are searched exactly in process; vectors with a dense part (the
  // local embedder's latent segment) get no postings and search LanceDB's ANN index. See sparse-vectors.ts.
  const owner = await withPassageIndex(
    r.denseUri,
    name,
    async (index) => index && { table: index.table, version: index.version },
  );
  if (owner) await writeSparseIndex(file, sparseFile(r, name), { paramsHash: record.paramsHash, ...owner });
  return {};
}

/** Dense search on one index; `missing` answers when the index was never built (null = refuse). */
async function denseSearch(
  r: RetrieverState,
  index: ChunkIndex | null,
  name: string,
  qs: string[],
  k: number,
  instruction: string,
  tool: string,
): Promise<Passage[][]> {
  if (!index) throw new ToolError(`retriever.${tool}: no index at ${r.denseUri}; run retriever.retriever_index first`);
  if (index.embedder.name === BM25_ONLY_NAME)
    throw new ToolError(`retriever.${tool}: this index holds no vectors (it was built by bm25_index); use bm25_search`);
  let embedder: Embedder;
  try {
    // Offline embedders (hash, local) come from the index's stored state, built once per opened index.
    embedder =
      index.embedder.name === "hash" || index.embedder.name === "local"
        ? (await searchLib()).storedEmbedder(index)
        : (await embed()).embedderForIndex(index.embedder, index.embedderState, await r.embedder());
  } catch (err) {
    throw new ToolError(`retriever.${tool}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const n = await index.rowCount();
  const vectors = await embedAll(
    embedder,
    qs.map((q) => instruction + q),
  );
  const sparse = await loadSparseIndex(sparseFile(r, name), {
    paramsHash: index.embedder.paramsHash,
    table: index.table,
    version: index.version,
  });
  if (sparse && sparse.rows === n) {
    const found = await sparseSearch(sparse, index, vectors, Math.min(k, n));
    if (found) return found;
  }
  return searchAll(vectors, async (v) =>
    (await index.vectorTexts(v, Math.min(k, n))).map((h) => ({ text: h.text, score: h.score })),
  );
}

/** The postings beside a dense index (sparse-vectors.ts). */
const sparseFile = (r: RetrieverState, name: string) => path.join(r.denseUri, `${name}.postings`);

/** Queries ranked between two yields to the event loop (~0.3 ms each at 100k passages). */
const SPARSE_SLICE = 64;

/**
 * Every query ranked on the postings, then all their passages read in one take. Null when the
 * index's rows are not the passages in corpus order (an index Argus did not write): LanceDB then.
 */
async function sparseSearch(
  sparse: SparseIndex,
  index: ChunkIndex,
  vectors: readonly Float32Array[],
  k: number,
): Promise<Passage[][] | null> {
  const ranked: { row: number; score: number }[][] = [];
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0 && i % SPARSE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    ranked.push(sparseTopKScored(sparse, vectors[i]!, k));
  }
  const offsets = [...new Set(ranked.flat().map((h) => h.row))];
  const texts = new Map<string, string>();
  for (let i = 0; i < offsets.length; i += TAKE_BATCH)
    for (const row of await index.textsAt(offsets.slice(i, i + TAKE_BATCH))) texts.set(row.id, row.text);
  if (offsets.some((o) => !texts.has(String(o)))) return null;
  return ranked.map((hits) => hits.map((h) => ({ text: texts.get(String(h.row))!, score: h.score })));
}
const TAKE_BATCH = 4_096;

/**
 * Runs one search per query, a few at once. The first runs alone: it loads what every query needs
 * (a dense index's codes, 0.6 s at 100k passages), which concurrent first queries would each load.
 */
async function searchAll<Q, R>(qs: readonly Q[], one: (q: Q) => Promise<R>): Promise<R[]> {
  if (qs.length === 0) return [];
  const first = await one(qs[0]!);
  return [first, ...(await mapConcurrent(qs.slice(1), SEARCH_CONCURRENCY, one))];
}

async function search(
  args: ToolArgs,
  ctx: CallContext,
  state: State,
  tool: string,
  qs: string[],
): Promise<Passage[][]> {
  const r = ready(state, tool);
  const k = topK(args.top_k, tool);
  const kb = knowledgeBaseName(args.collection_name);
  if (kb !== null) return searchKnowledgeBase(ctx, kb, qs, k, tool);
  const instruction = typeof args.query_instruction === "string" ? args.query_instruction : "";
  const name =
    r.indexBackend === "milvus" ? r.collectionIndex(args.collection_name, `retriever.${tool}`) : r.denseIndex;
  const { withPassageIndex } = await store();
  return withPassageIndex(r.denseUri, name, (index) => denseSearch(r, index, name, qs, k, instruction, tool));
}

async function bm25Index(args: ToolArgs, ctx: CallContext, state: State) {
  const r = ready(state, "bm25_index");
  if (r.backend !== "bm25")
    throw new ToolError(`retriever.bm25_index: set backend: bm25 in the retriever's parameters (it is ${r.backend})`);
  const { withPassageIndex, buildPassageIndex, passageRows, BM25_ONLY } = await store();
  const exists = await withPassageIndex(r.bm25Uri, "bm25", async (index) => index !== null);
  if (exists && args.overwrite !== true) {
    ctx.notice?.(
      `the BM25 index at ${path.relative(ctx.cwd, r.bm25Uri)} exists; keeping it (set overwrite: true to rebuild)`,
    );
    return {};
  }
  const contents = await corpus(r, "bm25_index");
  const words = contents.map((c) => r.tokenizer.tokens(c).join(" "));
  await buildPassageIndex(r.bm25Uri, "bm25", {
    embedder: BM25_ONLY,
    embedderState: { tokenizer: r.tokenizer.kind },
    rows: passageRows(contents, (i) => words[i]!),
  });
  return {};
}

async function bm25Search(args: ToolArgs, _ctx: CallContext, state: State) {
  const tool = "bm25_search";
  const r = ready(state, tool);
  const k = topK(args.top_k, tool);
  const qs = queries(args, "query_list", tool);
  const { withPassageIndex } = await store();
  const found = await withPassageIndex(r.bm25Uri, "bm25", async (index) => {
    if (!index)
      throw new ToolError(`retriever.bm25_search: no BM25 index at ${r.bm25Uri}; run retriever.bm25_index first`);
    const n = await index.rowCount();
    const want = Math.min(k, n);
    const hits = await searchAll(qs, async (q) => {
      const words = r.tokenizer.tokens(q);
      return words.length ? index.fullTextTexts(words.join(" "), want) : [];
    });
    // bm25s returns top_k even when fewer passages share a word: the rest score 0, in corpus order.
    const short = hits.some((h) => h.length < want);
    const contents = short && existsSync(r.corpusPath) ? await corpus(r, tool) : null;
    return hits.map((h) => {
      const found: Passage[] = h.map((x) => ({ text: x.text, score: x.score }));
      if (contents && found.length < want) {
        const taken = new Set(h.map((x) => Number(x.id)));
        for (let i = 0; i < contents.length && found.length < want; i++)
          if (!taken.has(i)) found.push({ text: contents[i]!, score: 0 });
      }
      return found;
    });
  });
  return withScores(found);
}

const SEARCH = ["query_list", "top_k", "query_instruction", "collection_name"];
const WEB = ["query_list", "top_k", "retrieve_thread_num", "websearch_backend", "websearch_backend_configs"];
const websearchBackend = { api_key: "", retries: 3, base_delay: 1.0, search_kwargs: {} };

export const retriever = defineServer<State>({
  name: "retriever",
  state: () => ({}),
  defaults: {
    model_name_or_path: "openbmb/MiniCPM-Embedding-Light",
    corpus_path: "data/corpus_example.jsonl",
    embedding_path: "embedding/embedding.npy",
    collection_name: "wiki",
    backend: "sentence_transformers",
    backend_configs: {
      infinity: { bettertransformer: false, pooling_method: "auto", model_warmup: false, trust_remote_code: true },
      sentence_transformers: {
        trust_remote_code: true,
        sentence_transformers_encode: {
          normalize_embeddings: false,
          encode_chunk_size: 256,
          q_prompt_name: "query",
          psg_prompt_name: "document",
          psg_task: null,
          q_task: null,
        },
      },
      openai: {
        model_name: "text-embedding-3-small",
        base_url: "https://api.openai.com/v1",
        api_key: "",
        concurrency: 8,
      },
      bm25: { lang: "en", tokenizer: "auto", save_path: "index/bm25" },
    },
    index_backend: "faiss",
    index_backend_configs: {
      faiss: { index_use_gpu: true, index_chunk_size: 10000, index_path: "index/index.index" },
      milvus: {
        uri: "index/milvus_demo.db",
        token: null,
        id_field_name: "id",
        vector_field_name: "vector",
        text_field_name: "contents",
        id_max_length: 64,
        text_max_length: 60000,
        metric_type: "IP",
        index_params: { index_type: "AUTOINDEX", metric_type: "IP" },
        search_params: { metric_type: "IP", params: {} },
        index_chunk_size: 1000,
      },
    },
    websearch_backend: "tavily",
    websearch_backend_configs: {
      exa: websearchBackend,
      tavily: websearchBackend,
      zhipuai: {
        ...websearchBackend,
        base_url: "https://open.bigmodel.cn/api/paas/v4/web_search",
        search_engine: "search_std",
        search_intent: false,
        search_recency_filter: "noLimit",
        content_size: "medium",
      },
    },
    batch_size: 16,
    top_k: 5,
    gpu_ids: "1",
    query_instruction: "",
    is_multimodal: false,
    overwrite: false,
    retrieve_thread_num: 1,
    retriever_url: "http://127.0.0.1:64501",
    is_demo: false,
  },
  tools: {
    retriever_init: {
      params: [
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
      ],
      async run(args, ctx, state) {
        state.r = await setupRetriever(args, ctx);
        return {};
      },
    },
    retriever_embed: { params: ["embedding_path", "overwrite", "is_multimodal"], run: retrieverEmbed },
    retriever_index: { params: ["embedding_path", "overwrite", "collection_name", "corpus_path"], run: retrieverIndex },
    retriever_search: {
      params: SEARCH,
      output: "q_ls,top_k,query_instruction,collection_name->ret_psg",
      // ret_scores beside the spec's ret_psg (a step keeps it with `output: {ret_psg: …, ret_scores: …}`).
      run: async (args, ctx, state) =>
        withScores(await search(args, ctx, state, "retriever_search", queries(args, "query_list", "retriever_search"))),
    },
    retriever_batch_search: {
      params: ["batch_query_list", "top_k", "query_instruction", "collection_name"],
      output: "batch_query_list,top_k,query_instruction,collection_name->ret_psg_ls",
      async run(args, ctx, state) {
        const tool = "retriever_batch_search";
        const lists = listArg(args, "batch_query_list", `retriever.${tool}`);
        const ret_psg_ls: string[][][] = [];
        const ret_scores_ls: number[][][] = [];
        for (const [i, list] of lists.entries()) {
          if (!Array.isArray(list))
            throw new ToolError(`retriever.${tool}: item ${i} of batch_query_list must be a list of queries`);
          const found = withScores(
            list.length ? await search(args, ctx, state, tool, queries({ q: list }, "q", tool)) : [],
          );
          ret_psg_ls.push(found.ret_psg);
          ret_scores_ls.push(found.ret_scores);
        }
        return { ret_psg_ls, ret_scores_ls };
      },
    },
    retriever_project_memory_search: {
      params: ["query_list", "top_k", "query_instruction", "current_user_id"],
      output: "q_ls,top_k,query_instruction,current_user_id->project_memory_content",
      async run(args, ctx, state) {
        const tool = "retriever_project_memory_search";
        const r = ready(state, tool);
        const qs = queries(args, "query_list", tool);
        const k = topK(args.top_k, tool);
        // Runs in the web app keep project memory in the database: rank the user's saved turns.
        if (ctx.memory)
          return { project_memory_content: await searchProjectMemory(ctx.memory, args.current_user_id, qs, k, tool) };
        const user =
          typeof args.current_user_id === "string" && args.current_user_id ? args.current_user_id : "default";
        const name = r.collectionIndex(`user_${user}`, `retriever.${tool}`);
        const instruction = typeof args.query_instruction === "string" ? args.query_instruction : "";
        // A vector index of the user's memory (upstream's Milvus collection) when one was built; else
        // the turns the memory server saved in its files, ranked by BM25.
        const { withPassageIndex } = await store();
        const project_memory_content = await withPassageIndex(r.denseUri, name, async (index) =>
          index
            ? withScores(await denseSearch(r, index, name, qs, k, instruction, tool)).ret_psg
            : searchProjectMemory(memoryStoreFor(ctx), args.current_user_id, qs, k, tool),
        );
        return { project_memory_content };
      },
    },
    bm25_index: { params: ["overwrite"], run: bm25Index },
    bm25_search: { params: ["query_list", "top_k"], output: "q_ls,top_k->ret_psg", run: bm25Search },
    retriever_deploy_search: {
      params: ["retriever_url", "query_list", "top_k", "query_instruction"],
      output: "retriever_url,q_ls,top_k,query_instruction->ret_psg",
      run: async (args, ctx) => ({
        ret_psg: await deploySearch(
          args.retriever_url,
          queries(args, "query_list", "retriever_deploy_search"),
          topK(args.top_k, "retriever_deploy_search"),
          typeof args.query_instruction === "string" ? args.query_instruction : "",
          ctx,
        ),
      }),
    },
    retriever_websearch: {
      params: WEB,
      output: "q_ls,top_k,retrieve_thread_num,websearch_backend,websearch_backend_configs->ret_psg",
      run: async (args, ctx) => ({
        ret_psg: await webSearch(args, queries(args, "query_list", "retriever_websearch"), "retriever_websearch", ctx),
      }),
    },
    retriever_batch_websearch: {
      params: ["batch_query_list", ...WEB.slice(1)],
      output: "batch_query_list,top_k,retrieve_thread_num,websearch_backend,websearch_backend_configs->ret_psg_ls",
      async run(args, ctx) {
        const tool = "retriever_batch_websearch";
        const lists = listArg(args, "batch_query_list", `retriever.${tool}`);
        const ret_psg_ls: string[][][] = [];
        for (const [i, list] of lists.entries()) {
          if (!Array.isArray(list))
            throw new ToolError(`retriever.${tool}: item ${i} of batch_query_list must be a list of queries`);
          ret_psg_ls.push(list.length ? await webSearch(args, queries({ q: list }, "q", tool), tool, ctx) : []);
        }
        return { ret_psg_ls };
      },
    },
  },
});
