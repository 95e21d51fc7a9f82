/**
 * Which pipelines can be talked to, and why the others cannot. A chat question reaches a pipeline as
 * a one-row data set, so it needs a benchmark server (that is where its questions come from); the
 * reply is the answer a generation step writes (`ans_ls`), so it needs one; and it must validate.
 * Retrieval-only, indexing and evaluation pipelines (bm25_search, corpus_index, eval_trec …) write no
 * answer, so they are listed with that reason instead of being offered.
 *
 * Follow-up turns run the pipeline's generation model over the earlier turns (UltraRAG's chat), with
 * the parameters of the generation alias that writes the answer — `generationAlias`.
 */
import { formatDiagnostic } from "../dsl/errors.ts";
import { aliasParameters, type AliasParameters } from "../dsl/params.ts";
import { parsePipeline } from "../dsl/parse.ts";
import { builtinCatalog, builtinName } from "../workspace/catalog.ts";
import { inspectPipeline } from "../workspace/inspect.ts";

export type ChatCapability =
  { ok: true; generationAlias: string; effective: AliasParameters } | { ok: false; reason: string };

const ANSWER_TOOLS = new Set(["generate", "multiturn_generate", "multimodal_generate"]);

export async function chatCapability(input: {
  name: string;
  source: string;
  parameters: Record<string, unknown>;
}): Promise<ChatCapability> {
  const inspection = await inspectPipeline(input.source, { file: `${input.name}.yaml`, parameters: input.parameters });
  const first = inspection.diagnostics.find((d) => d.severity === "error");
  if (first) return { ok: false, reason: `It is not valid, so it cannot run: ${formatDiagnostic(first)}` };
  const pipeline = parsePipeline(input.source, { file: `${input.name}.yaml` }).pipeline!;
  const serverOf = new Map(pipeline.servers.map((s) => [s.alias, builtinName(s.path)]));
  const nodes = inspection.graph?.nodes ?? [];
  const reads = nodes.some((n) => n.alias && serverOf.get(n.alias) === "benchmark" && n.tool === "get_data");
  if (!reads) return { ok: false, reason: "It reads no questions (it has no benchmark.get_data step)." };
  const answering = nodes.filter(
    (n) =>
      n.alias &&
      serverOf.get(n.alias) === "generation" &&
      ANSWER_TOOLS.has(n.tool ?? "") &&
      n.outputs.some((o) => o.as === "ans_ls"),
  );
  const last = answering[answering.length - 1];
  if (!last?.alias) return { ok: false, reason: "It writes no answer: no generation step produces ans_ls." };
  const effective = aliasParameters(pipeline, await builtinCatalog(), input.parameters);
  return { ok: true, generationAlias: last.alias, effective };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Why the generation alias's model cannot be asked, or null: the backend, the model's name and an
 * http(s) base URL must be set (with the secrets in place). Whether the server answers is the run's
 * to find out; its error then says so.
 */
export function modelProblem(
  alias: string,
  section: unknown,
  // Web-app runs never take keys from the server's environment (docs/security.md), so by default none.
  env: Record<string, string | undefined> = {},
): string | null {
  const fix = `set them in the pipeline's Parameters tab (${alias})`;
  if (!isRecord(section)) return `No model is configured for ${alias}: ${fix}.`;
  const backend = section.backend;
  if (backend !== "openai" && backend !== "vllm" && backend !== "hf")
    return `No model is configured: ${alias}.backend must be openai, vllm or hf — ${fix}.`;
  const cfg = isRecord(section.backend_configs) ? section.backend_configs[backend] : undefined;
  if (!isRecord(cfg)) return `No model is configured: ${alias}.backend_configs.${backend} is missing — ${fix}.`;
  const modelKey = backend === "openai" ? "model_name" : "model_name_or_path";
  const model = backend === "openai" ? cfg.model_name : (cfg.model_name ?? cfg.model_name_or_path);
  if (typeof model !== "string" || !model.trim())
    return `No model is configured: ${alias}.backend_configs.${backend}.${modelKey} is empty — ${fix}.`;
  const url = cfg.base_url;
  if (url !== undefined && url !== null && url !== "" && (typeof url !== "string" || !/^https?:\/\//.test(url)))
    return `No model is configured: ${alias}.backend_configs.${backend}.base_url must be an http(s) URL — ${fix}.`;
  if (backend === "openai" && !url && !(typeof cfg.api_key === "string" && cfg.api_key) && !env.LLM_API_KEY)
    return `No model is configured: ${alias} would call OpenAI without an API key — set backend_configs.openai.base_url or api_key in the pipeline's Parameters tab.`;
  return null;
}
