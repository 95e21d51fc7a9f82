/**
 * Model steps and the workspace's model connection. A web-app run carries the workspace's default
 * connection (Settings → Model providers) in its context; a model step (generation, the LLM
 * reranker) whose backend block names no server and no model — `base_url` and `model_name` empty,
 * as the gallery ships them — uses that connection. A block that names either keeps UltraRAG's
 * meaning, and so does every command-line run (no workspace there).
 */
import type { LlmClientOptions } from "../../llm/index.ts";
import type { CallContext } from "./contract.ts";
import { ToolError } from "./define.ts";

const blank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/** Whether a backend block leaves the model to the workspace (names neither server nor model). */
export const leavesModelToWorkspace = (cfg: Record<string, unknown>) =>
  blank(cfg.base_url) && blank(cfg.model_name) && blank(cfg.model_name_or_path);

/** What to tell a web run whose workspace has no model: where to add one, or what to set instead. */
export const NO_WORKSPACE_MODEL =
  "this workspace has no model connection: add one in Settings → Model providers (an owner can mark it default), or set backend_configs.openai.base_url and model_name in the pipeline's parameters";

/**
 * The workspace connection a step uses, or undefined when the step's parameters name their own
 * model (or the run is a command-line run). Fails with what to do when a web run has none.
 */
export function workspaceModelFor(
  ctx: Pick<CallContext, "model" | "notice">,
  cfg: Record<string, unknown>,
  step: string,
): { label: string; options: LlmClientOptions } | undefined {
  if (ctx.model === undefined || !leavesModelToWorkspace(cfg)) return undefined;
  if (ctx.model === null) throw new ToolError(`${step}: ${NO_WORKSPACE_MODEL}`);
  ctx.model.onUse?.();
  ctx.notice?.(`uses the workspace's model connection ${ctx.model.label}`);
  return { label: ctx.model.label, options: ctx.model.options };
}

/**
 * Whether UltraRAG's `extra_params` (e.g. `chat_template_kwargs` for vLLM/Ollama chat templates) go
 * to the workspace's connection: only to a self-hosted OpenAI-compatible server — OpenAI itself and
 * the other providers refuse fields they do not know.
 */
export function takesExtraParams(options: LlmClientOptions): boolean {
  if (options.provider !== "openai-compatible" || !options.baseURL) return false;
  try {
    return new URL(options.baseURL).hostname !== "api.openai.com";
  } catch {
    return false;
  }
}
