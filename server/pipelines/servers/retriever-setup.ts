/**
 * What `retriever_init` sets up (spec §5.2), in Argus's terms: where the corpus is, which embedder a
 * dense backend uses, and which LanceDB directory and index each backend reads and writes.
 *  - `backend: bm25` → LanceDB full text, stored at `backend_configs.bm25.save_path`.
 *  - `backend: sentence_transformers | infinity` → a local transformers model folder when
 *    `model_name_or_path` is one, else Argus's hash embedder (with a notice);
 *    `backend: openai` → the embeddings endpoint of `backend_configs.openai`; `backend: hash` → hash.
 *  - `index_backend: faiss` → LanceDB at `index_backend_configs.faiss.index_path` (index `corpus`);
 *    `index_backend: milvus` → LanceDB at `index_backend_configs.milvus.uri`, index `collection_name`.
 *    Either way a one-line notice says LanceDB serves it.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { checkOutbound } from "./outbound.ts";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Embedder } from "../../retrieval/embed/types.ts";
import { bm25Tokenizer, type Bm25Tokenizer } from "./bm25-text.ts";
import type { CallContext } from "./contract.ts";
import { describe, ToolError, type ToolArgs } from "./define.ts";
import { KB_PREFIX, knowledgeBaseName } from "./retriever-app.ts";
import { runFiles } from "./run-files.ts";

export const MAX_CORPUS_PASSAGES = 2_000_000;
const COLLECTION = /^[A-Za-z0-9_-]{1,100}$/;

export interface RetrieverState {
  backend: string;
  corpusPath: string;
  /** Passages (`contents`) in corpus order, once a tool has read them. */
  contents: string[] | null;
  tokenizer: Bm25Tokenizer;
  bm25Uri: string;
  /** Dense index location. */
  denseUri: string;
  denseIndex: string;
  indexBackend: "faiss" | "milvus";
  /** Creates (once) the configured dense embedder. */
  embedder: () => Promise<Embedder>;
  /** The `collection_name` parameter names an index in the dense store (milvus); `kb:<name>` is a
   * knowledge base instead (retriever-app.ts), which this refuses. */
  collectionIndex: (name: unknown, tool: string) => string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const section = (v: unknown, key: string): Record<string, unknown> => {
  const s = isRecord(v) ? v[key] : undefined;
  return isRecord(s) ? s : {};
};

/** A path parameter that may not exist yet (the corpus a later step writes, an index folder). */
const pathParam = (v: unknown, name: string, ctx: CallContext): string =>
  runFiles(ctx).locate(v, name, "retriever.retriever_init");

/** The corpus file's `contents`, one passage per JSONL line (blank lines skipped). */
export function readCorpus(file: string, tool: string): Promise<string[]> {
  return scanCorpus(file, tool, Infinity);
}

/** Reads passages until `stopAfter` of them (`readCorpus` reads them all). */
async function scanCorpus(file: string, tool: string, stopAfter: number): Promise<string[]> {
  const info = existsSync(file) ? statSync(file) : null;
  if (!info?.isFile())
    throw new ToolError(
      `${tool}: corpus file '${file}' does not exist (corpus_path resolves against the run's directory)`,
    );
  const out: string[] = [];
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      lines.close();
      throw new ToolError(`${tool}: ${file}:${n} is not valid JSON (a corpus line is {"id": …, "contents": "…"})`);
    }
    const contents = isRecord(row) ? row.contents : undefined;
    if (typeof contents !== "string") {
      lines.close();
      throw new ToolError(`${tool}: ${file}:${n} has no text \`contents\` field`);
    }
    out.push(contents);
    if (out.length >= stopAfter) {
      lines.close();
      return out;
    }
    if (out.length > MAX_CORPUS_PASSAGES) {
      lines.close();
      throw new ToolError(`${tool}: ${file} has more than ${MAX_CORPUS_PASSAGES.toLocaleString("en")} passages`);
    }
  }
  if (!out.length) throw new ToolError(`${tool}: corpus file '${file}' has no passages`);
  return out;
}

function denseEmbedder(args: ToolArgs, ctx: CallContext): () => Promise<Embedder> {
  const backend = args.backend as string;
  let made: Promise<Embedder> | undefined;
  const model = args.model_name_or_path;
  // A model *name* (not a folder) is fine: it only selects Argus's local embedder.
  const folder =
    typeof model === "string" && model ? runFiles(ctx).locate(model, "model_name_or_path", "retriever") : null;
  const useFolder =
    backend !== "hash" && backend !== "openai" && !!folder && existsSync(path.join(folder, "config.json"));
  if (backend !== "hash" && backend !== "openai" && backend !== "bm25" && !useFolder)
    ctx.notice?.(
      `${String(model)} is not a local model folder (config.json, tokenizer.json, onnx/model.onnx) and models are not downloaded here: using Argus's local embedder`,
    );
  const create = async (): Promise<Embedder> => {
    // Loaded on first use: the transformers runtime is heavy, and most runs never embed.
    const { createEmbedderFromSettings } = await import("../../retrieval/embed/settings.ts");
    if (backend === "openai") {
      const cfg = section(args.backend_configs, "openai");
      const model = cfg.model_name;
      if (typeof model !== "string" || !model)
        throw new ToolError("retriever: backend_configs.openai.model_name must name the embedding model");
      if (typeof cfg.base_url === "string" && cfg.base_url)
        await checkOutbound(ctx, cfg.base_url, "retriever", "backend_configs.openai.base_url");
      const apiKey = (typeof cfg.api_key === "string" && cfg.api_key) || ctx.operatorEnv?.RETRIEVER_API_KEY;
      return createEmbedderFromSettings({
        embedder: "openai",
        openai: {
          model,
          ...(typeof cfg.base_url === "string" && cfg.base_url ? { baseURL: cfg.base_url } : {}),
          ...(apiKey ? { apiKey } : {}),
        },
      });
    }
    if (useFolder)
      return createEmbedderFromSettings({ embedder: "transformers", transformers: { modelPath: folder! } });
    // `backend: hash` keeps the older hash embedder; anything else without a model gets the local one.
    return createEmbedderFromSettings({ embedder: backend === "hash" ? "hash" : "local" });
  };
  return () =>
    (made ??= create().catch((err: unknown) => {
      made = undefined;
      throw err instanceof ToolError
        ? err
        : new ToolError(`retriever: ${err instanceof Error ? err.message : String(err)}`);
    }));
}

export async function setupRetriever(args: ToolArgs, ctx: CallContext): Promise<RetrieverState> {
  const tool = "retriever.retriever_init";
  const backend = args.backend;
  const backends = ["bm25", "sentence_transformers", "infinity", "openai", "hash"];
  if (typeof backend !== "string" || !backends.includes(backend))
    throw new ToolError(`${tool}: backend must be one of ${backends.join(", ")}, got ${describe(backend)}`);
  const indexBackend = args.index_backend ?? "faiss";
  if (indexBackend !== "faiss" && indexBackend !== "milvus")
    throw new ToolError(`${tool}: index_backend must be faiss or milvus, got ${describe(indexBackend)}`);
  if (args.is_demo === true)
    ctx.notice?.("demo mode: upstream switches to OpenAI embeddings and Milvus; Argus keeps the configured backend");
  const bm25 = section(args.backend_configs, "bm25");
  const configs = args.index_backend_configs;
  const corpusPath = pathParam(args.corpus_path, "corpus_path", ctx);
  const state: RetrieverState = {
    backend,
    corpusPath,
    contents: null,
    tokenizer: bm25Tokenizer(bm25.lang, bm25.tokenizer),
    bm25Uri: pathParam(bm25.save_path ?? "index/bm25", "backend_configs.bm25.save_path", ctx),
    denseUri: "",
    denseIndex: "corpus",
    indexBackend,
    embedder: denseEmbedder(args, ctx),
    collectionIndex: (name, t) => {
      if (typeof name === "string" && name.startsWith(KB_PREFIX))
        throw new ToolError(
          `${t}: collection_name "${name}" is an Argus knowledge base: the app indexes it as documents are uploaded; this tool writes only index collections`,
        );
      if (typeof name !== "string" || !COLLECTION.test(name))
        throw new ToolError(`${t}: collection_name must be letters, digits, '_' or '-', got ${describe(name)}`);
      return name;
    },
  };
  if (indexBackend === "faiss") {
    const faiss = section(configs, "faiss");
    state.denseUri = pathParam(faiss.index_path ?? "index/index.index", "index_backend_configs.faiss.index_path", ctx);
  } else {
    const milvus = section(configs, "milvus");
    state.denseUri = pathParam(milvus.uri ?? "index/milvus_demo.db", "index_backend_configs.milvus.uri", ctx);
    // A knowledge-base collection is searched in the app's store; the dense index keeps its default.
    if (knowledgeBaseName(args.collection_name) === null)
      state.denseIndex = state.collectionIndex(args.collection_name, tool);
  }
  if (backend !== "bm25")
    ctx.notice?.(
      `index_backend ${indexBackend} runs on LanceDB in Argus (${path.relative(ctx.cwd, state.denseUri) || "."})`,
    );
  // Upstream loads the corpus here (bm25, faiss); Argus reads it when a tool needs it — searches
  // return the passages stored in the index, so a search-only run over 100k passages skips reading
  // and parsing 100k lines (0.4 s). A corpus that is there is checked to start with a passage.
  if ((backend === "bm25" || indexBackend === "faiss") && existsSync(corpusPath)) await scanCorpus(corpusPath, tool, 1);
  return state;
}
