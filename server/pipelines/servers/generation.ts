/**
 * servers/generation (spec §5.3) on Argus's LLM client: `generation_init` connects (generation-backend.ts),
 * `generate` answers each prompt (one non-streamed request per prompt, `concurrency` at a time, answers
 * in input order), `multiturn_generate` continues a chat, `multimodal_generate` sends images with the
 * text. Demo mode follows UltraRAG's LocalGenerationService (spec §2.12, quirk Q12): the model is
 * `backend_configs.openai` whatever `backend` says, only the first prompt is answered, streamed as
 * `token` run events, and the answer list is that one answer.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ContentBlock, Message } from "../../llm/index.ts";
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError, type ToolArgs } from "./define.ts";
import { ask, createBackend, mapConcurrent, type Backend } from "./generation-backend.ts";
import { runFiles } from "./run-files.ts";
import { messageText } from "../engine/values.ts";

type State = { backend?: Backend };

const ready = (state: State, tool: string): Backend => {
  if (!state.backend)
    throw new ToolError(`generation.${tool}: the model is not connected; run generation.generation_init first`);
  return state.backend;
};

/** A prompt as UltraRAG reads it: a PromptMessage, a dict with content.text / content / text, or text; stripped. */
function promptText(v: unknown, i: number, tool: string): string {
  if (typeof v === "string") return v.trim();
  const m = messageText(v);
  if (m !== undefined) return m.trim();
  if (v !== null && typeof v === "object") {
    const o = v as { content?: unknown; text?: unknown };
    const c = o.content as { text?: unknown } | string | undefined;
    if (c && typeof c === "object" && typeof c.text === "string") return c.text.trim();
    if (typeof c === "string") return c.trim();
    if (typeof o.text === "string") return o.text.trim();
  }
  throw new ToolError(`generation.${tool}: prompt ${i} must be text, got ${describe(v)}`);
}

const systemOf = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
const user = (content: ContentBlock[]): Message => ({ role: "user", content });

/** Demo mode answers `prompts[0]` only (spec §2.12); the others are never sent. */
const demoPrompts = <T>(ctx: CallContext, prompts: T[]): T[] => (ultraragDemo(ctx) ? prompts.slice(0, 1) : prompts);

/**
 * UltraRAG's demo mode, exactly: command-line runs (`argus pipeline run --demo`, operator file
 * access). Web-app runs are demo runs too (their first answer streams), but they answer every prompt:
 * they are evaluated and compared, and an unanswered question would score as wrong.
 */
const ultraragDemo = (ctx: CallContext) => ctx.demo === true && ctx.fileAccess === "operator";

async function generate(args: ToolArgs, ctx: CallContext, state: State): Promise<Record<string, unknown>> {
  const backend = ready(state, "generate");
  const prompts = demoPrompts(
    ctx,
    listArg(args, "prompt_ls", "generation.generate").map((p, i) => promptText(p, i, "generate")),
  );
  const system = systemOf(args.system_prompt);
  const ans_ls = await mapConcurrent(prompts, backend.concurrency, (p, i) =>
    ask(
      backend,
      [user([{ type: "text", text: p }])],
      {
        ...(system ? { system } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.onUsage ? { onUsage: ctx.onUsage } : {}),
        ...(ctx.demo && i === 0 && ctx.onToken ? { onToken: ctx.onToken } : {}),
      },
      "generate",
    ),
  );
  return { ans_ls };
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** An image block from a URL, or from a file inside the run's directory (never a file elsewhere). */
async function imageBlock(ref: unknown, ctx: CallContext, i: number): Promise<ContentBlock> {
  if (typeof ref !== "string" || ref === "")
    throw new ToolError(`generation.multimodal_generate: image ${i} must be a path or URL, got ${describe(ref)}`);
  if (/^(https?:|data:)/.test(ref)) return { type: "image", source: { kind: "url", url: ref } };
  const file = runFiles(ctx).read(ref, `multimodal_path[${i}]`, "generation.multimodal_generate");
  const mediaType = IMAGE_TYPES[path.extname(file).toLowerCase()];
  if (!mediaType)
    throw new ToolError(`generation.multimodal_generate: image '${ref}' is not a .png, .jpg, .gif or .webp file`);
  return { type: "image", source: { kind: "base64", mediaType, data: (await readFile(file)).toString("base64") } };
}

async function multimodal(args: ToolArgs, ctx: CallContext, state: State): Promise<Record<string, unknown>> {
  const backend = ready(state, "multimodal_generate");
  const tool = "multimodal_generate";
  const prompts = demoPrompts(
    ctx,
    listArg(args, "prompt_ls", `generation.${tool}`).map((p, i) => promptText(p, i, tool)),
  );
  const paths = listArg(args, "multimodal_path", `generation.${tool}`);
  const tag = typeof args.image_tag === "string" && args.image_tag ? args.image_tag : undefined;
  const system = systemOf(args.system_prompt);
  const ans_ls = await mapConcurrent(prompts, backend.concurrency, async (p, i) => {
    const refs = paths[i] === undefined ? [] : Array.isArray(paths[i]) ? (paths[i] as unknown[]) : [paths[i]];
    const images = await Promise.all(refs.map((r) => imageBlock(r, ctx, i)));
    let content: ContentBlock[];
    if (tag) {
      const parts = p.split(tag);
      if (parts.length - 1 !== images.length)
        throw new ToolError(
          `generation.${tool}: prompt ${i} has ${parts.length - 1} ${tag} tag(s) but ${images.length} image(s); they must match`,
        );
      content = parts.flatMap((t, k): ContentBlock[] => [
        ...(t ? [{ type: "text" as const, text: t }] : []),
        ...(k < images.length ? [images[k]!] : []),
      ]);
    } else content = [...images, { type: "text", text: p }];
    return ask(
      backend,
      [user(content)],
      {
        ...(system ? { system } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.onUsage ? { onUsage: ctx.onUsage } : {}),
        ...(ctx.demo && i === 0 && ctx.onToken ? { onToken: ctx.onToken } : {}),
      },
      tool,
    );
  });
  return { ans_ls };
}

/** A chat history `[{role, content}]`: system turns join the system prompt, the rest alternate. */
async function multiturn(args: ToolArgs, ctx: CallContext, state: State): Promise<Record<string, unknown>> {
  const backend = ready(state, "multiturn_generate");
  const history = listArg(args, "messages", "generation.multiturn_generate");
  const systems = systemOf(args.system_prompt) ? [String(args.system_prompt)] : [];
  const messages: Message[] = [];
  history.forEach((m, i) => {
    const role = (m as { role?: unknown } | null)?.role;
    const content = (m as { content?: unknown } | null)?.content;
    if ((role !== "user" && role !== "assistant" && role !== "system") || typeof content !== "string")
      throw new ToolError(
        `generation.multiturn_generate: message ${i} must be {role: user|assistant|system, content: text}, got ${describe(m)}`,
      );
    if (role === "system") systems.push(content);
    else messages.push({ role, content: [{ type: "text", text: content }] });
  });
  if (!messages.length || messages[messages.length - 1]!.role !== "user")
    throw new ToolError("generation.multiturn_generate: the history must end with a user message");
  const answer = await ask(
    backend,
    messages,
    {
      ...(systems.length ? { system: systems.join("\n\n") } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onUsage ? { onUsage: ctx.onUsage } : {}),
      ...(ctx.demo && ctx.onToken ? { onToken: ctx.onToken } : {}),
    },
    "multiturn_generate",
  );
  return { ans_ls: [answer] };
}

export const generation = defineServer<State>({
  name: "generation",
  state: () => ({}),
  defaults: {
    backend: "vllm",
    backend_configs: {
      vllm: {
        model_name_or_path: "openbmb/MiniCPM4-8B",
        gpu_ids: "2,3",
        gpu_memory_utilization: 0.9,
        dtype: "auto",
        trust_remote_code: true,
      },
      openai: {
        model_name: "MiniCPM4-8B",
        base_url: "http://localhost:8000/v1",
        api_key: "",
        concurrency: 8,
        retries: 3,
        base_delay: 1.0,
      },
      hf: { model_name_or_path: "openbmb/MiniCPM4-8B", gpu_ids: "2,3", trust_remote_code: true, batch_size: 8 },
    },
    sampling_params: { temperature: 0.7, top_p: 0.8, max_tokens: 2048 },
    extra_params: { chat_template_kwargs: { enable_thinking: false } },
    system_prompt: "",
    image_tag: null,
  },
  tools: {
    generation_init: {
      params: ["backend_configs", "sampling_params", "extra_params", "backend"],
      async run(args, ctx, state) {
        // Demo mode's LocalGenerationService always reads backend_configs.openai (spec §2.12).
        const chosen = ultraragDemo(ctx) ? { ...args, backend: "openai" } : args;
        state.backend = await createBackend(chosen, ctx.operatorEnv ?? {}, (m) => ctx.notice?.(m), ctx);
        return {};
      },
    },
    generate: { params: ["prompt_ls", "system_prompt"], output: "prompt_ls,system_prompt->ans_ls", run: generate },
    multimodal_generate: {
      params: ["multimodal_path", "prompt_ls", "system_prompt", "image_tag"],
      output: "multimodal_path,prompt_ls,system_prompt,image_tag->ans_ls",
      run: multimodal,
    },
    multiturn_generate: {
      params: ["messages", "system_prompt"],
      output: "messages,system_prompt->ans_ls",
      run: multiturn,
    },
    // Called with {} after every run (UltraRAG's cleanup of tools ending in `vllm_shutdown`): nothing
    // is held in process here (the model runs behind an HTTP server), so it only forgets the connection.
    vllm_shutdown: {
      params: [],
      output: "->None",
      run: (_args, _ctx, state) => {
        delete state.backend;
        return {};
      },
    },
  },
});
