/**
 * The provider-neutral client. stream() yields text_delta / tool_use events as they arrive, then one
 * usage event and exactly one stop event; provider failures never throw out of it, they end the
 * stream with stop { reason: "error", error } so a job loop has one place to look. Retries happen
 * here (only before the first event reached the caller, since a half-shown answer cannot be taken
 * back), as do timeouts, cancellation, budgets and assembling the assistant turn.
 */
import { z } from "zod";
import { type Budget, type BudgetHold, estimateInputTokens, reserveLocally } from "./budget.ts";
import { type ModelInfo, PROVIDER_INFO, costUsd, mapReasoningEffort, modelInfo } from "./catalog.ts";
import { LlmError, StreamCutError, classifyError, withoutSecret } from "./errors.ts";
import { guarded } from "./guard.ts";
import { createOpenAICompatibleAdapter } from "./openai-compatible.ts";
import { createOpenAIResponsesAdapter } from "./openai-responses.ts";
import type { ProviderAdapter, ProviderRequest } from "./provider.ts";
import { type RetryPolicy, retryDelay, sleep } from "./retry.ts";
import {
  type ContentBlock,
  type ProviderId,
  type StopReason,
  type StreamEvent,
  type StreamRequestData,
  type ToolUseBlock,
  type Usage,
  providerSchema,
  reasoningEffortSchema,
  streamRequestSchema,
} from "./types.ts";

export const clientOptionsSchema = z.object({
  provider: providerSchema,
  /** Default: the provider's default model from the catalog (openai-compatible has none). */
  model: z.string().min(1).optional(),
  apiKey: z.string().min(1).optional(),
  /** Anthropic: without /v1 (https://api.anthropic.com). OpenAI and compatible: with /v1. */
  baseURL: z.url().optional(),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().positive().default(16384),
  reasoningEffort: reasoningEffortSchema.optional(),
  /** Wait for response headers. */
  requestTimeoutMs: z.number().int().positive().default(120_000),
  /** Longest silence inside a stream (and before the first event) before the attempt is abandoned. */
  idleTimeoutMs: z.number().int().positive().default(300_000),
  maxRetries: z.number().int().nonnegative().default(4),
  retryBaseDelayMs: z.number().nonnegative().default(1000),
  retryMaxDelayMs: z.number().nonnegative().default(30_000),
  /** A provider asking to wait longer than this gets its error returned instead. */
  maxRetryAfterMs: z.number().nonnegative().default(120_000),
  /** openai-compatible only: "json" when the served model has no native tool calling. */
  toolMode: z.enum(["native", "json"]).default("native"),
  /** openai-compatible only: ask for usage in the stream (stream_options.include_usage). */
  streamUsage: z.boolean().default(true),
  /** Extra headers for gateways (e.g. OpenRouter's HTTP-Referer). */
  headers: z.record(z.string(), z.string()).optional(),
  /** The fetch requests go through: the outbound policy's (server/net/outbound.ts) when a user chose
   * the base URL, so every hop is checked; default the global fetch. */
  fetch: z.custom<typeof fetch>((v) => typeof v === "function", "a fetch function").optional(),
});
export type LlmClientOptions = z.input<typeof clientOptionsSchema>;

export type StreamRequest = StreamRequestData & {
  signal?: AbortSignal;
  /** The job's budget; charged with this request's usage. */
  budget?: Budget;
};

export interface Completion {
  content: ContentBlock[];
  text: string;
  toolUses: ToolUseBlock[];
  stopReason: Exclude<StopReason, "error">;
  usage: Usage;
  costUsd: number | undefined;
}

export interface LlmClient {
  readonly provider: z.infer<typeof providerSchema>;
  readonly model: string;
  readonly info: ModelInfo;
  stream(request: StreamRequest): AsyncGenerator<StreamEvent>;
  /** Collects a whole answer; throws LlmError when the stream stops with an error. */
  complete(request: StreamRequest): Promise<Completion>;
}

/** Test seams: a custom adapter, and the randomness of backoff jitter. */
export interface ClientDeps {
  adapter?: ProviderAdapter;
  random?: () => number;
}

export function createLlmClient(options: LlmClientOptions, deps: ClientDeps = {}): LlmClient {
  const o = clientOptionsSchema.parse(options);
  const configured = o.model ?? PROVIDER_INFO[o.provider].defaultModel;
  if (!configured) throw new Error(`${o.provider}: no model configured (set LLM_MODEL).`);
  const model: string = configured;
  const info = modelInfo(o.provider, model);
  const adapter = deps.adapter ?? makeAdapter(o, model);
  const policy: RetryPolicy = {
    maxRetries: o.maxRetries,
    baseDelayMs: o.retryBaseDelayMs,
    maxDelayMs: o.retryMaxDelayMs,
    maxRetryAfterMs: o.maxRetryAfterMs,
  };

  async function* stream(request: StreamRequest): AsyncGenerator<StreamEvent> {
    const req = streamRequestSchema.parse(request);
    const { signal, budget } = request;
    const tools = req.tools ?? [];
    const content = new TurnBuilder();
    const fail = (e: LlmError): StreamEvent => ({
      type: "stop",
      reason: "error",
      content: content.blocks(),
      error: e.toInfo(),
    });

    let maxTokens = Math.min(req.maxTokens ?? o.maxTokens, info.maxOutputTokens ?? Infinity);
    /** What this request holds on the budget until its usage is charged (released however it ends). */
    let hold: BudgetHold | undefined;
    if (budget || req.maxCostUsd !== undefined) {
      const ask = {
        estimatedInput: estimateInputTokens(req.system, req.messages, tools),
        maxTokens,
        pricing: info.pricing,
        requestMaxUsd: req.maxCostUsd,
      };
      // A budget shared beyond this process checks and holds where its figures live (one atomic step).
      const fit = budget?.reserve ? await budget.reserve(ask) : reserveLocally(budget, ask);
      if (!fit.ok) {
        const kind = fit.kind ?? "budget_exceeded";
        yield fail(new LlmError({ kind, provider: o.provider, model, detail: fit.reason }));
        return;
      }
      maxTokens = fit.maxTokens;
      hold = fit.hold;
    }
    const temperature = req.temperature ?? o.temperature;
    const providerRequest: ProviderRequest = {
      model,
      system: req.system,
      messages: req.messages,
      tools,
      toolChoice: forcedToolChoiceOk(req.toolChoice) ? req.toolChoice : "auto",
      maxTokens,
      temperature: info.capabilities.temperature ? temperature : undefined,
      reasoningEffort: mapReasoningEffort(info, req.reasoningEffort ?? o.reasoningEffort),
      cacheKey: req.cacheKey,
      topP: req.topP,
      extraBody: req.extraBody,
      wireStreaming: req.wireStreaming,
    };

    // Used only when a server reports no usage, so budgets still count something.
    const estimate = () => ({
      inputTokens: estimateInputTokens(req.system, req.messages, tools),
      outputTokens: estimateInputTokens(undefined, [{ role: "assistant", content: content.blocks() }], []),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });

    try {
      for (let attempt = 0; ; attempt++) {
        const controller = new AbortController();
        const onAbort = () => controller.abort(signal?.reason);
        if (signal?.aborted) onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        const usage: Partial<Usage> = {};
        let shown = false; // whether the caller has seen any event of this attempt
        try {
          for await (const ev of guarded(
            adapter.stream(providerRequest, controller.signal),
            controller,
            o.idleTimeoutMs,
          )) {
            if (ev.type === "usage") {
              Object.assign(usage, ev.usage);
            } else if (ev.type === "stop") {
              yield usageEvent(usage, estimate, hold);
              yield { type: "stop", reason: ev.reason, content: content.blocks() };
              return;
            } else {
              shown = true;
              content.add(ev);
              yield ev;
            }
          }
          throw new StreamCutError("the adapter ended without a stop");
        } catch (e) {
          const err = withoutSecret(classifyError(e, o.provider, model, signal?.aborted ?? false), o.apiKey);
          err.attempts = attempt + 1;
          const delay = shown ? undefined : retryDelay(err, attempt, policy, deps.random);
          if (delay !== undefined) {
            try {
              await sleep(delay, signal);
              continue;
            } catch {
              yield fail(classifyError(signal?.reason, o.provider, model, true));
              return;
            }
          }
          if (Object.keys(usage).length > 0) yield usageEvent(usage, estimate, hold);
          yield fail(err);
          return;
        } finally {
          signal?.removeEventListener("abort", onAbort);
        }
      }
    } finally {
      hold?.release(); // however the request ended: nothing of it stays held
    }
  }

  /** A model that rejects forced tool use gets "auto" (see catalog): the loop still works, unforced. */
  function forcedToolChoiceOk(choice: StreamRequestData["toolChoice"]): boolean {
    return info.capabilities.forcedToolChoice || choice === undefined || choice === "auto" || choice === "none";
  }

  function usageEvent(partial: Partial<Usage>, estimate: () => Usage, hold: BudgetHold | undefined): StreamEvent {
    const estimated = Object.keys(partial).length === 0;
    const usage: Usage = estimated
      ? estimate()
      : { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...partial };
    const cost = costUsd(usage, info.pricing);
    hold?.charge(usage, cost); // the hold becomes the charge
    return {
      type: "usage",
      usage,
      ...(cost === undefined ? {} : { costUsd: cost }),
      ...(estimated ? { estimated } : {}),
    };
  }

  async function complete(request: StreamRequest): Promise<Completion> {
    let usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let cost: number | undefined;
    for await (const ev of stream(request)) {
      if (ev.type === "usage") {
        usage = ev.usage;
        cost = ev.costUsd;
      } else if (ev.type === "stop") {
        if (ev.reason === "error") throw LlmError.fromInfo(ev.error!);
        const text = ev.content.map((b) => (b.type === "text" ? b.text : "")).join("");
        const toolUses = ev.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
        return { content: ev.content, text, toolUses, stopReason: ev.reason, usage, costUsd: cost };
      }
    }
    throw new Error("unreachable: the stream ended without a stop event");
  }

  return { provider: o.provider, model, info, stream, complete };
}

function makeAdapter(o: z.infer<typeof clientOptionsSchema>, model: string): ProviderAdapter {
  const apiKey = o.apiKey ?? (o.provider === "openai-compatible" ? "not-needed" : undefined);
  if (!apiKey) {
    throw new LlmError({
      kind: "auth",
      provider: o.provider,
      model,
      detail: `no API key (set ${PROVIDER_INFO[o.provider].env.apiKey})`,
    });
  }
  const conn = { apiKey, baseURL: o.baseURL, requestTimeoutMs: o.requestTimeoutMs, headers: o.headers, fetch: o.fetch };
  switch (o.provider) {
    case "anthropic":
      return lazyAdapter(o.provider, async () => (await anthropicModule()).createAnthropicAdapter(conn));
    case "openai":
      return createOpenAIResponsesAdapter(conn);
    case "openai-compatible":
      return createOpenAICompatibleAdapter(conn, { toolMode: o.toolMode, streamUsage: o.streamUsage });
  }
}

/**
 * The Anthropic adapter's module, imported once per process. A dynamic import of a module already
 * loaded still goes through the loader (off the main thread with tsx's hooks): a turn of the event
 * loop before every answer's first request, which then waits behind whatever else was queued.
 */
let anthropicImport: Promise<typeof import("./anthropic.ts")> | undefined;
const anthropicModule = () =>
  (anthropicImport ??= import("./anthropic.ts").catch((err: unknown) => {
    anthropicImport = undefined;
    throw err;
  }));

/**
 * An adapter whose provider SDK loads on the first request. For Anthropic's: a process that never
 * talks to Anthropic (a pipeline's generation on an OpenAI-compatible server, say) does not load it —
 * it took 2 s of a pipeline run's start on a busy machine. (The OpenAI SDK loads with the module: the
 * embeddings endpoint needs it anyway.)
 */
function lazyAdapter(provider: ProviderId, load: () => Promise<ProviderAdapter>): ProviderAdapter {
  let made: Promise<ProviderAdapter> | undefined;
  return {
    provider,
    async *stream(request, signal) {
      const adapter = await (made ??= load().catch((err: unknown) => {
        made = undefined;
        throw err;
      }));
      yield* adapter.stream(request, signal);
    },
  };
}

/** Assembles the assistant turn from the events the caller saw. */
class TurnBuilder {
  private list: ContentBlock[] = [];

  add(ev: Extract<StreamEvent, { type: "text_delta" | "tool_use" | "reasoning" }>) {
    if (ev.type === "tool_use") {
      this.list.push({ type: "tool_use", id: ev.id, name: ev.name, input: ev.input });
      return;
    }
    if (ev.type === "reasoning") {
      this.list.push(ev.block);
      return;
    }
    const last = this.list.at(-1);
    if (last?.type === "text") last.text += ev.text;
    else this.list.push({ type: "text", text: ev.text });
  }

  blocks(): ContentBlock[] {
    return structuredClone(this.list);
  }
}
