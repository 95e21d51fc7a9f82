/**
 * The retriever's HTTP tools (spec §5.2): `retriever_deploy_search` asks a deployed retriever
 * (`POST <retriever_url>/search` → `{ret_psg}`), web search asks Tavily, Exa or ZhipuAI. Without an
 * API key (parameter or TAVILY_API_KEY / EXA_API_KEY / ZHIPUAI_API_KEY) web search fails at once
 * with the parameter to set. Per query: retries with doubling delay; a query that keeps failing gets
 * `[]` (as upstream), a refused key fails the step. Timeouts bound every request.
 */
import type { CallContext } from "./contract.ts";
import { checkOutbound, fetchFor } from "./outbound.ts";
import { OutboundRefusedError } from "../../net/outbound.ts";
import { describe, ToolError, type ToolArgs } from "./define.ts";
import { mapConcurrent } from "./generation-backend.ts";

const TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

class AuthError extends Error {}

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
  fetchImpl: typeof fetch,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const res = await fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const text = await res.text();
  if (text.length > MAX_RESPONSE_BYTES) throw new Error(`the answer from ${url} is over 20 MB`);
  if (res.status === 401 || res.status === 403) throw new AuthError(`${url} refused the API key (HTTP ${res.status})`);
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${url} did not answer JSON`);
  }
}

export async function deploySearch(
  url: unknown,
  queries: string[],
  topK: number,
  instruction: string,
  ctx: CallContext,
): Promise<unknown> {
  if (typeof url !== "string" || !/^https?:\/\//.test(url))
    throw new ToolError(
      `retriever.retriever_deploy_search: retriever_url must be an http(s) URL, got ${describe(url)}`,
    );
  await checkOutbound(ctx, url, "retriever.retriever_deploy_search", "retriever_url");
  const target = new URL(url);
  target.pathname = "/search";
  let data: unknown;
  try {
    data = await postJson(
      target.href,
      { query_list: queries, top_k: topK, query_instruction: instruction },
      {},
      ctx.signal,
      fetchFor(ctx),
    );
  } catch (err) {
    throw new ToolError(
      `retriever.retriever_deploy_search: ${err instanceof Error ? err.message : String(err)} (is the retriever at retriever_url running?)`,
    );
  }
  if (!isRecord(data) || !Array.isArray(data.ret_psg))
    throw new ToolError(`retriever.retriever_deploy_search: ${target.href} must answer {"ret_psg": [[…], …]}`);
  return data.ret_psg;
}

type Backend = "tavily" | "exa" | "zhipuai";
const ENV: Record<Backend, string> = { tavily: "TAVILY_API_KEY", exa: "EXA_API_KEY", zhipuai: "ZHIPUAI_API_KEY" };
const URLS: Record<Backend, string> = {
  tavily: "https://api.tavily.com/search",
  exa: "https://api.exa.ai/search",
  zhipuai: "https://open.bigmodel.cn/api/paas/v4/web_search",
};

function texts(backend: Backend, data: unknown): string[] {
  const results = isRecord(data) ? (backend === "zhipuai" ? data.search_result : data.results) : undefined;
  if (!Array.isArray(results)) return [];
  const field = backend === "tavily" ? "content" : backend === "exa" ? "text" : "content";
  return results.flatMap((r) => (isRecord(r) && typeof r[field] === "string" ? [r[field]] : []));
}

export async function webSearch(
  args: ToolArgs,
  queries: string[],
  tool: string,
  ctx: CallContext,
): Promise<string[][]> {
  const backend = args.websearch_backend;
  if (backend !== "tavily" && backend !== "exa" && backend !== "zhipuai")
    throw new ToolError(
      `retriever.${tool}: websearch_backend must be tavily, exa or zhipuai, got ${describe(backend)}`,
    );
  const configs = isRecord(args.websearch_backend_configs) ? args.websearch_backend_configs : {};
  const cfg = isRecord(configs[backend]) ? configs[backend] : {};
  const key = (typeof cfg.api_key === "string" && cfg.api_key) || ctx.operatorEnv?.[ENV[backend]];
  if (!key)
    throw new ToolError(
      `retriever.${tool}: ${backend} needs an API key: set websearch_backend_configs.${backend}.api_key in the retriever's parameters (or ${ENV[backend]} in the environment)`,
    );
  const k = args.top_k as number;
  const retries = Number.isInteger(cfg.retries) ? Math.max(1, cfg.retries as number) : 3;
  const baseDelay = typeof cfg.base_delay === "number" ? cfg.base_delay * 1000 : 1000;
  // An Argus extension (proxies, tests): where the backend's API is.
  const url = typeof cfg.base_url === "string" && cfg.base_url ? cfg.base_url : URLS[backend];
  await checkOutbound(ctx, url, `retriever.${tool}`, `websearch_backend_configs.${backend}.base_url`);
  const extra = isRecord(cfg.search_kwargs) ? cfg.search_kwargs : {};
  const threads = Number.isInteger(args.retrieve_thread_num) ? Math.max(1, args.retrieve_thread_num as number) : 1;
  const request = (q: string) => {
    if (backend === "tavily")
      return postJson(
        url,
        { query: q, max_results: k, ...extra },
        { authorization: `Bearer ${key}` },
        ctx.signal,
        fetchFor(ctx),
      );
    if (backend === "exa")
      return postJson(
        url,
        { query: q, numResults: k, contents: { text: true }, ...extra },
        { "x-api-key": key },
        ctx.signal,
        fetchFor(ctx),
      );
    return postJson(
      url,
      {
        search_query: q,
        search_engine: cfg.search_engine ?? "search_std",
        search_intent: cfg.search_intent ?? false,
        count: k,
        search_recency_filter: cfg.search_recency_filter ?? "noLimit",
        content_size: cfg.content_size ?? "medium",
        ...extra,
      },
      { authorization: `Bearer ${key}` },
      ctx.signal,
      fetchFor(ctx),
    );
  };
  return mapConcurrent(queries, threads, async (q) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return texts(backend, await request(q)).slice(0, k);
      } catch (err) {
        if (err instanceof AuthError)
          throw new ToolError(`retriever.${tool}: ${err.message}; check websearch_backend_configs.${backend}.api_key`);
        // A refused hop (a redirect to an internal address) is the policy's answer, not a flaky search.
        if (err instanceof OutboundRefusedError) throw new ToolError(`retriever.${tool}: ${err.message}`);
        if (ctx.signal?.aborted) throw err;
        if (attempt + 1 >= retries) {
          ctx.notice?.(
            `${backend} search failed for one query (${err instanceof Error ? err.message : String(err)}); its results are empty`,
          );
          return [];
        }
        await new Promise((r) => setTimeout(r, baseDelay * 2 ** attempt));
      }
    }
  });
}
