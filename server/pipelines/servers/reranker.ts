/**
 * servers/reranker (spec §5.5): `reranker_rerank` keeps each query's top_k passages, best first.
 * Backends:
 *  - `bm25` (Argus's offline default for `sentence_transformers` / `infinity`, which need a local
 *    cross-encoder upstream): BM25 (k1 1.5, b 0.75) with the candidates as the collection; ties keep
 *    the retriever's order. A notice says when it stands in for a cross-encoder.
 *  - `openai`: an OpenAI-compatible / Cohere-style endpoint, `POST <base_url>` (…/rerank)
 *    `{model, query, documents, top_n}` → `results[]` with `index` or `document(.text)`.
 *  - `llm`: the chat model as a listwise reranker (backend_configs.llm: model_name, base_url,
 *    api_key — left empty in a web-app run, the workspace's model connection), asked for the passage
 *    numbers in order; numbers it leaves out keep their order after.
 */
import type { LlmClient } from "../../llm/index.ts";
import { checkOutbound, fetchFor } from "./outbound.ts";
import { workspaceModelFor } from "./workspace-model.ts";
import { bm25Tokenizer } from "./bm25-text.ts";
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError, type ToolArgs } from "./define.ts";

type Backend =
  | { kind: "bm25" }
  | { kind: "openai"; url: string; model: string; apiKey: string | undefined; fetch: typeof fetch }
  | { kind: "llm"; client: LlmClient };
type State = { backend?: Backend };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const section = (v: unknown, key: string) => (isRecord(v) && isRecord(v[key]) ? v[key] : {});
const words = bm25Tokenizer("en", "auto");

/** BM25 scores of `docs` for `query`, with the candidates themselves as the collection. */
export function lexicalScores(query: string, docs: readonly string[]): number[] {
  const k1 = 1.5;
  const b = 0.75;
  const toks = docs.map((d) => words.tokens(d));
  const avg = toks.reduce((s, t) => s + t.length, 0) / Math.max(1, toks.length);
  const df = new Map<string, number>();
  for (const t of toks) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const q = [...new Set(words.tokens(query))];
  return toks.map((t) => {
    const tf = new Map<string, number>();
    for (const w of t) tf.set(w, (tf.get(w) ?? 0) + 1);
    return q.reduce((s, w) => {
      const f = tf.get(w) ?? 0;
      if (!f) return s;
      const idf = Math.log(1 + (toks.length - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
      return s + (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * t.length) / (avg || 1)));
    }, 0);
  });
}

const byScore = (docs: readonly string[], scores: readonly number[], k: number) =>
  docs
    .map((d, i) => ({ d, s: scores[i]!, i }))
    .sort((x, y) => y.s - x.s || x.i - y.i)
    .slice(0, k)
    .map((x) => x.d);

async function endpointRerank(backend: Extract<Backend, { kind: "openai" }>, query: string, docs: string[], k: number) {
  const res = await backend
    .fetch(backend.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(backend.apiKey ? { authorization: `Bearer ${backend.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: backend.model, query, documents: docs, top_n: k }),
      signal: AbortSignal.timeout(60_000),
    })
    .catch((err: unknown) => {
      throw new ToolError(
        `reranker.reranker_rerank: ${backend.url} is unreachable (${err instanceof Error ? err.message : String(err)})`,
      );
    });
  const body = (await res.json().catch(() => null)) as { results?: unknown } | null;
  if (!res.ok || !body || !Array.isArray(body.results))
    throw new ToolError(`reranker.reranker_rerank: ${backend.url} answered HTTP ${res.status} without a results list`);
  return body.results.slice(0, k).map((r: unknown) => {
    const o = isRecord(r) ? r : {};
    if (typeof o.index === "number" && docs[o.index] !== undefined) return docs[o.index]!;
    const doc = o.document;
    if (typeof doc === "string") return doc;
    if (isRecord(doc) && typeof doc.text === "string") return doc.text;
    throw new ToolError(`reranker.reranker_rerank: ${backend.url} returned a result without index or document`);
  });
}

const llmModule = () => import("../../llm/index.ts");

async function llmRerank(client: LlmClient, query: string, docs: string[], k: number, signal?: AbortSignal) {
  const { userText } = await llmModule();
  const listing = docs.map((d, i) => `[${i + 1}] ${d}`).join("\n\n");
  const { text } = await client
    .complete({
      messages: [
        userText(
          `Rank the passages below by how well they answer the query. Reply with the passage numbers only, most relevant first, separated by " > " (e.g. [2] > [1] > [3]).\n\nQuery: ${query}\n\n${listing}`,
        ),
      ],
      ...(signal ? { signal } : {}),
    })
    .catch((err: unknown) => {
      throw new ToolError(`reranker.reranker_rerank: ${err instanceof Error ? err.message : String(err)}`);
    });
  const order: number[] = [];
  for (const m of text.matchAll(/\d+/g)) {
    const i = Number(m[0]) - 1;
    if (i >= 0 && i < docs.length && !order.includes(i)) order.push(i);
  }
  for (let i = 0; i < docs.length; i++) if (!order.includes(i)) order.push(i);
  return order.slice(0, k).map((i) => docs[i]!);
}

async function init(args: ToolArgs, ctx: CallContext): Promise<Backend> {
  const backend = args.backend;
  if (backend === "bm25") return { kind: "bm25" };
  if (backend === "sentence_transformers" || backend === "infinity") {
    ctx.notice?.(
      `backend ${backend} needs a local cross-encoder model (${String(args.model_name_or_path)}); Argus reranks with BM25 over the candidates instead (set backend: openai for a /rerank endpoint, or llm)`,
    );
    return { kind: "bm25" };
  }
  if (backend === "openai") {
    const cfg = section(args.backend_configs, "openai");
    if (typeof cfg.base_url !== "string" || !/^https?:\/\//.test(cfg.base_url))
      throw new ToolError("reranker.reranker_init: backend_configs.openai.base_url must be the /rerank endpoint's URL");
    const url = /\/rerank\/?$/.test(cfg.base_url) ? cfg.base_url : `${cfg.base_url.replace(/\/$/, "")}/rerank`;
    await checkOutbound(ctx, url, "reranker.reranker_init", "backend_configs.openai.base_url");
    const apiKey = (typeof cfg.api_key === "string" && cfg.api_key) || ctx.operatorEnv?.RERANKER_API_KEY || undefined;
    return {
      kind: "openai",
      url,
      model: String(cfg.model_name ?? args.model_name_or_path ?? ""),
      apiKey,
      fetch: fetchFor(ctx),
    };
  }
  if (backend === "llm") {
    const cfg = section(args.backend_configs, "llm");
    const workspace = workspaceModelFor(ctx, cfg, "reranker.reranker_init");
    if (workspace) {
      const { createLlmClient } = await llmModule();
      return { kind: "llm", client: createLlmClient({ ...workspace.options, maxRetries: 2 }) };
    }
    if (typeof cfg.model_name !== "string" || typeof cfg.base_url !== "string")
      throw new ToolError("reranker.reranker_init: backend llm needs backend_configs.llm.model_name and base_url");
    await checkOutbound(ctx, cfg.base_url, "reranker.reranker_init", "backend_configs.llm.base_url");
    const apiKey = (typeof cfg.api_key === "string" && cfg.api_key) || ctx.operatorEnv?.LLM_API_KEY || undefined;
    const { createLlmClient } = await llmModule();
    try {
      return {
        kind: "llm",
        client: createLlmClient({
          provider: "openai-compatible",
          model: cfg.model_name,
          baseURL: cfg.base_url,
          maxRetries: 2,
          ...(ctx.outbound ? { fetch: ctx.outbound.fetch } : {}),
          ...(apiKey ? { apiKey } : {}),
        }),
      };
    } catch (err) {
      throw new ToolError(`reranker.reranker_init: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new ToolError(
    `reranker.reranker_init: backend must be bm25, sentence_transformers, infinity, openai or llm, got ${describe(backend)}`,
  );
}

export const reranker = defineServer<State>({
  name: "reranker",
  state: () => ({}),
  defaults: {
    model_name_or_path: "openbmb/MiniCPM-Reranker-Light",
    backend: "sentence_transformers",
    backend_configs: {
      infinity: {
        bettertransformer: false,
        pooling_method: "auto",
        device: "cuda",
        model_warmup: false,
        trust_remote_code: true,
      },
      sentence_transformers: { device: "cuda", trust_remote_code: true },
      openai: { model_name: "text-embedding-3-small", base_url: "https://api.openai.com/v1", api_key: "" },
    },
    gpu_ids: 0,
    top_k: 5,
    batch_size: 16,
    query_instruction: "",
  },
  tools: {
    reranker_init: {
      params: ["model_name_or_path", "backend_configs", "batch_size", "gpu_ids", "backend"],
      async run(args, ctx, state) {
        state.backend = await init(args, ctx);
        return {};
      },
    },
    reranker_rerank: {
      params: ["query_list", "passages_list", "top_k", "query_instruction"],
      output: "q_ls,ret_psg,top_k,query_instruction->rerank_psg",
      async run(args, ctx, state) {
        const tool = "reranker.reranker_rerank";
        const backend = state.backend;
        if (!backend) throw new ToolError(`${tool}: run reranker.reranker_init first`);
        const qs = listArg(args, "query_list", tool);
        const lists = listArg(args, "passages_list", tool);
        if (qs.length !== lists.length)
          throw new ToolError(`${tool}: ${qs.length} queries but ${lists.length} passage lists; they must match`);
        const k = args.top_k;
        if (!Number.isInteger(k) || (k as number) < 1)
          throw new ToolError(`${tool}: top_k must be a whole number ≥ 1, got ${describe(k)}`);
        const instruction = typeof args.query_instruction === "string" ? args.query_instruction : "";
        const rerank_psg: string[][] = [];
        for (const [i, list] of lists.entries()) {
          const docs = (Array.isArray(list) ? list : [list]).map(String);
          const query = instruction + String(qs[i]);
          if (!docs.length) rerank_psg.push([]);
          else if (backend.kind === "bm25") rerank_psg.push(byScore(docs, lexicalScores(query, docs), k as number));
          else if (backend.kind === "openai") rerank_psg.push(await endpointRerank(backend, query, docs, k as number));
          else rerank_psg.push(await llmRerank(backend.client, query, docs, k as number, ctx.signal));
        }
        return { rerank_psg };
      },
    },
  },
});
