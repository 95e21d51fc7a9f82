/**
 * The generation server's model connection (spec §5.3): UltraRAG's `backend` / `backend_configs` /
 * `sampling_params` / `extra_params` turned into a provider-neutral client (server/llm) and the
 * per-request fields it sends. Every backend talks Chat Completions: `openai` at its base_url, and
 * `vllm` / `hf` (local GPU engines upstream) at an OpenAI-compatible server — e.g. `vllm serve` —
 * with a notice saying so. UltraRAG's retry rule is kept: only 5xx answers are retried, `retries`
 * attempts in all with `base_delay`×2ⁿ + U(0, 0.25) s between them, and the item's answer becomes
 * "<error>" when they run out; any other refusal fails the step. In a web-app run, an `openai` block
 * that names no server and no model uses the workspace's model connection (workspace-model.ts).
 */
import type { LlmClient, LlmError, Message, StreamRequest } from "../../llm/index.ts";
import type { CallContext } from "./contract.ts";
import { checkOutbound } from "./outbound.ts";
import { describe, ToolError } from "./define.ts";
import { takesExtraParams, workspaceModelFor } from "./workspace-model.ts";

export interface Backend {
  client: LlmClient;
  request: Pick<StreamRequest, "temperature" | "topP" | "maxTokens" | "extraBody">;
  concurrency: number;
  retries: number;
  baseDelayMs: number;
}

const DEFAULT_OPENAI_URL = "https://api.openai.com/v1";
const LOCAL_OPENAI_URL = "http://localhost:8000/v1";

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function section(configs: unknown, name: string): Record<string, unknown> {
  if (!isRecord(configs))
    throw new ToolError(`generation.generation_init: backend_configs must be a mapping of backend names to settings`);
  const v = configs[name];
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new ToolError(`generation.generation_init: backend_configs.${name} must be a mapping`);
  return v;
}

function numberIn(v: unknown, name: string, min: number, max: number, int = false): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (int && !Number.isInteger(v)))
    throw new ToolError(
      `generation.generation_init: ${name} must be ${int ? "a whole number" : "a number"} from ${min} to ${max}, got ${describe(v)}`,
    );
  return v;
}

/** sampling_params → the neutral fields; every other key (and extra_params) rides in the body, as the SDK's extra_body. */
function samplingRequest(sampling: unknown, extra: unknown): Backend["request"] {
  if (sampling !== null && sampling !== undefined && !isRecord(sampling))
    throw new ToolError(
      "generation.generation_init: sampling_params must be a mapping (temperature, top_p, max_tokens…)",
    );
  if (extra !== null && extra !== undefined && !isRecord(extra))
    throw new ToolError("generation.generation_init: extra_params must be a mapping (e.g. chat_template_kwargs)");
  const { temperature, top_p, max_tokens, ...rest } = sampling ?? {};
  const request: Backend["request"] = {};
  if (temperature !== undefined && temperature !== null)
    request.temperature = numberIn(temperature, "sampling_params.temperature", 0, 2);
  if (top_p !== undefined && top_p !== null) request.topP = numberIn(top_p, "sampling_params.top_p", 0, 1);
  if (max_tokens !== undefined && max_tokens !== null)
    request.maxTokens = numberIn(max_tokens, "sampling_params.max_tokens", 1, 10_000_000, true);
  const body = { ...rest, ...(extra && Object.keys(extra).length ? extra : {}) };
  if (Object.keys(body).length) request.extraBody = body;
  return request;
}

// The provider SDKs load on first use (a run without generation never needs them).
const llmModule = () => import("../../llm/index.ts");

export async function createBackend(
  args: Record<string, unknown>,
  env: Record<string, string | undefined>,
  notice: (message: string) => void,
  ctx: Pick<CallContext, "outbound" | "model"> = {},
): Promise<Backend> {
  const { createLlmClient } = await llmModule();
  const backend = args.backend;
  if (backend !== "openai" && backend !== "vllm" && backend !== "hf")
    throw new ToolError(
      `generation.generation_init: backend must be "openai", "vllm" or "hf", got ${describe(backend)}`,
    );
  const cfg = section(args.backend_configs, backend);
  const workspace =
    backend === "openai" ? workspaceModelFor({ ...ctx, notice }, cfg, "generation.generation_init") : undefined;
  const retries =
    cfg.retries === undefined ? 3 : numberIn(cfg.retries, `backend_configs.${backend}.retries`, 0, 20, true);
  const baseDelay =
    cfg.base_delay === undefined ? 1 : numberIn(cfg.base_delay, `backend_configs.${backend}.base_delay`, 0, 600);
  const concurrency =
    cfg.concurrency === undefined
      ? 8
      : numberIn(cfg.concurrency, `backend_configs.${backend}.concurrency`, 1, 256, true);
  if (workspace) {
    const request = samplingRequest(
      args.sampling_params,
      takesExtraParams(workspace.options) ? args.extra_params : undefined,
    );
    if (!takesExtraParams(workspace.options)) delete request.extraBody;
    let client: LlmClient;
    try {
      client = createLlmClient({
        ...workspace.options,
        maxRetries: 0,
        requestTimeoutMs: 600_000,
        idleTimeoutMs: 600_000,
      });
    } catch (err) {
      throw new ToolError(`generation.generation_init: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { client, request, concurrency, retries: Math.max(1, retries), baseDelayMs: baseDelay * 1000 };
  }
  let model: unknown;
  let baseURL: unknown;
  if (backend === "openai") {
    model = cfg.model_name;
    baseURL = cfg.base_url || DEFAULT_OPENAI_URL;
  } else {
    model = cfg.model_name ?? cfg.model_name_or_path;
    baseURL = cfg.base_url || LOCAL_OPENAI_URL;
    notice(
      `backend ${backend} runs on an OpenAI-compatible server in Argus (no in-process GPU engine): ${String(baseURL)}, model ${String(model)} — serve the model there (e.g. \`vllm serve\`) or set backend_configs.${backend}.base_url`,
    );
  }
  if (typeof model !== "string" || model.trim() === "")
    throw new ToolError(
      `generation.generation_init: backend_configs.${backend}.${backend === "openai" ? "model_name" : "model_name_or_path"} must name the model${backend === "openai" ? " (or leave model_name and base_url empty to use the workspace's model connection in the web app, or the server's LLM_* settings on the command line)" : ""}`,
    );
  if (typeof baseURL !== "string" || !/^https?:\/\//.test(baseURL))
    throw new ToolError(
      `generation.generation_init: backend_configs.${backend}.base_url must be an http(s) URL such as ${LOCAL_OPENAI_URL}, got ${describe(baseURL)}`,
    );
  await checkOutbound(ctx, baseURL, "generation.generation_init", `backend_configs.${backend}.base_url`);
  const apiKey = (typeof cfg.api_key === "string" && cfg.api_key) || env.LLM_API_KEY || undefined;
  let client: LlmClient;
  try {
    client = createLlmClient({
      provider: "openai-compatible",
      model,
      baseURL,
      ...(apiKey ? { apiKey } : {}),
      maxRetries: 0, // UltraRAG's own rule, below
      ...(ctx.outbound ? { fetch: ctx.outbound.fetch } : {}),
      requestTimeoutMs: 600_000,
      idleTimeoutMs: 600_000,
    });
  } catch (err) {
    throw new ToolError(`generation.generation_init: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    client,
    request: samplingRequest(args.sampling_params, args.extra_params),
    concurrency,
    retries: Math.max(1, retries),
    baseDelayMs: baseDelay * 1000,
  };
}

export interface AskOptions {
  system?: string;
  signal?: AbortSignal;
  /** Stream the answer (demo mode), handing each delta here. */
  onToken?: (text: string) => void;
  /** Each attempt's token usage, as the client reports it. */
  onUsage?: (usage: { input: number; output: number }) => void;
  random?: () => number;
}

/** One answer, with UltraRAG's retry rule; "<error>" when every attempt got a 5xx. */
export async function ask(backend: Backend, messages: Message[], options: AskOptions, label: string): Promise<string> {
  const { LlmError } = await llmModule();
  for (let attempt = 0; ; attempt++) {
    let text = "";
    let failure: LlmError | undefined;
    for await (const ev of backend.client.stream({
      ...backend.request,
      ...(options.system ? { system: options.system } : {}),
      messages,
      wireStreaming: options.onToken !== undefined,
      ...(options.signal ? { signal: options.signal } : {}),
    })) {
      if (ev.type === "text_delta") {
        text += ev.text;
        options.onToken?.(ev.text);
      } else if (ev.type === "usage") options.onUsage?.({ input: ev.usage.inputTokens, output: ev.usage.outputTokens });
      else if (ev.type === "stop" && ev.reason === "error") failure = LlmError.fromInfo(ev.error!);
    }
    if (!failure) return text;
    if (failure.kind === "aborted") throw failure;
    if (failure.kind !== "server" || text !== "") throw new ToolError(`generation.${label}: ${hint(failure)}`);
    if (attempt + 1 >= backend.retries) return "<error>";
    const delay = backend.baseDelayMs * 2 ** attempt + (options.random ?? Math.random)() * 250;
    await sleep(delay, options.signal);
  }
}

function hint(err: LlmError): string {
  if (err.kind === "auth")
    return `${err.message} (set backend_configs.openai.api_key, or LLM_API_KEY in the environment)`;
  if (err.kind === "network" || err.kind === "timeout")
    return `${err.message} (is the model server at backend_configs.<backend>.base_url running?)`;
  return err.message;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(t);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}

/** Runs `fn` over `items` with at most `limit` at a time; results in input order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
