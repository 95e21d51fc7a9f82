/**
 * Plain words for the pipeline parameter form: a label and a line of help for the built-in servers'
 * parameters (UltraRAG's names are kept in the YAML and shown beside the label), and which
 * `*_backend_configs` block a field belongs to, so the form can fold the blocks of backends the
 * pipeline does not use. Pure: the server attaches labels to the fields, the browser groups them.
 */
import type { ParamField } from "./pipelines.ts";

interface Words {
  label: string;
  help?: string;
}

/** Backend names as a person says them. */
export const BACKEND_NAMES: Record<string, string> = {
  openai: "OpenAI-compatible API",
  vllm: "vLLM server",
  hf: "Hugging Face",
  sentence_transformers: "Sentence Transformers",
  infinity: "Infinity",
  bm25: "BM25 (keywords, no model)",
  faiss: "FAISS index",
  milvus: "Milvus",
  tavily: "Tavily",
  exa: "Exa",
  zhipuai: "Zhipu AI",
  token: "By tokens",
  sentence: "By sentences",
  recursive: "Recursive",
};

/** Mappings that group other values: their name becomes the context of the values inside them. */
const GROUPS: Record<string, string> = {
  sampling_params: "Sampling",
  extra_params: "Extra request fields",
  chat_template_kwargs: "Chat template",
  sentence_transformers_encode: "Encoding",
  key_map: "Dataset columns",
  index_params: "Index settings",
  search_params: "Search settings",
  mineru_extra_params: "MinerU",
};

/** Keys that mean the same on every server. */
const WORDS: Record<string, Words> = {
  backend: { label: "Backend", help: "Which engine this server uses; only its settings below are read." },
  index_backend: { label: "Index backend", help: "Where the vectors are stored and searched." },
  websearch_backend: { label: "Web search provider", help: "The search API the web search steps call." },
  chunk_backend: { label: "Chunking method", help: "How documents are cut into passages." },
  model_name: { label: "Model", help: "The model name the API expects, e.g. gpt-4o-mini." },
  model_name_or_path: { label: "Model", help: "A model id (e.g. openbmb/MiniCPM4-8B) the server loads." },
  base_url: { label: "Base URL", help: "The API's address, ending in /v1 for OpenAI-compatible servers." },
  api_key: { label: "API key", help: "Stored sealed on the server; never sent back to the browser." },
  token: { label: "Access token", help: "Stored sealed on the server; never sent back to the browser." },
  concurrency: { label: "Parallel requests", help: "How many requests run at once." },
  retries: { label: "Retries", help: "How often a failed request is tried again." },
  base_delay: { label: "Retry delay (s)", help: "Seconds before the first retry; doubled each time." },
  batch_size: { label: "Batch size", help: "Items sent to the model per call." },
  gpu_ids: { label: "GPUs", help: "Which GPUs a local engine uses (not used by API backends)." },
  gpu_memory_utilization: { label: "GPU memory share" },
  dtype: { label: "Number type" },
  trust_remote_code: { label: "Run the model's own code", help: "Needed by some models from the Hub." },
  device: { label: "Device", help: "cuda or cpu." },
  temperature: { label: "Temperature", help: "Higher is more varied, 0 is the most repeatable." },
  top_p: { label: "Top-p", help: "Only the most likely words whose chances add up to this are sampled." },
  max_tokens: { label: "Longest answer (tokens)" },
  enable_thinking: { label: "Let the model think first", help: "For models with a thinking mode." },
  system_prompt: { label: "System prompt", help: "Instructions sent before every request; empty for none." },
  image_tag: { label: "Image tag", help: "The placeholder that marks an image in multimodal prompts." },
  top_k: { label: "Results per question", help: "How many passages come back for each question." },
  query_instruction: { label: "Question prefix", help: "Text put before each question when it is embedded." },
  collection_name: { label: "Source", help: "The collection to search, or kb:<name> for a knowledge base." },
  corpus_path: { label: "Corpus file", help: "A .jsonl file of passages, inside the run's folder." },
  embedding_path: { label: "Embeddings file" },
  index_path: { label: "Index file" },
  save_path: { label: "Save to" },
  is_demo: { label: "Demo mode" },
  is_multimodal: { label: "Images as well as text" },
  overwrite: { label: "Rebuild if it exists" },
  retrieve_thread_num: { label: "Search threads" },
  retriever_url: { label: "Retriever service URL", help: "Used only by the steps that call a running retriever." },
  name: { label: "Name" },
  path: { label: "Questions file", help: "A .jsonl file inside the run's folder." },
  limit: { label: "Questions to use", help: "-1 uses them all." },
  shuffle: { label: "Shuffle the questions" },
  seed: { label: "Shuffle seed" },
  q_ls: { label: "Question column" },
  gt_ls: { label: "Answer column" },
  metrics: { label: "Answer metrics", help: "Scores computed for each answer against the gold answers." },
  ir_metrics: { label: "Retrieval metrics" },
  ks: { label: "Cut-offs (k)", help: "The k values retrieval metrics are computed at." },
  n_resamples: { label: "Resamples", help: "For the significance test." },
  qrels_path: { label: "Relevance judgements file" },
  run_path: { label: "Run file" },
  run_old_path: { label: "Baseline run file" },
  run_new_path: { label: "New run file" },
  template: { label: "Prompt template", help: "A Jinja file under prompt/." },
  chunk_size: { label: "Passage size", help: "Characters or tokens per passage, as the counter below counts." },
  chunk_overlap: { label: "Overlap", help: "How much each passage repeats of the one before." },
  tokenizer_or_token_counter: { label: "Count size in", help: "character, word or a tokenizer name." },
  min_sentences_per_chunk: { label: "Fewest sentences per passage" },
  min_characters_per_chunk: { label: "Fewest characters per passage" },
  delim: { label: "Sentence ends" },
  use_title: { label: "Put the title in each passage" },
  chunk_path: { label: "Passages file" },
  raw_chunk_path: { label: "Parsed text file" },
  parse_file_path: { label: "Document to parse" },
  text_corpus_save_path: { label: "Text corpus file" },
  image_corpus_save_path: { label: "Image corpus file" },
  mineru_dir: { label: "MinerU output folder" },
  user_id: { label: "Memory owner", help: "Whose memory the memory steps read and write." },
  lang: { label: "Language" },
  tokenizer: { label: "Tokenizer" },
  metric_type: { label: "Similarity" },
  index_use_gpu: { label: "Use a GPU for the index" },
  index_chunk_size: { label: "Vectors added per batch" },
  normalize_embeddings: { label: "Normalise vectors" },
  encode_chunk_size: { label: "Texts per encoding batch" },
};

const humanize = (key: string) => {
  const words = key.replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `backend_configs` → `backend`, `index_backend_configs` → `index_backend`; undefined for other keys. */
export const backendSelectorOf = (key: string): string | undefined =>
  /^(?:[a-z0-9]+_)*backend_configs$/i.test(key) ? key.replace(/_configs$/i, "") : undefined;

/** A label and help for a parameter at `path` (its keys inside the alias's section). */
export function paramWords(path: readonly string[]): Words {
  const leaf = path[path.length - 1] ?? "";
  const words =
    WORDS[leaf] ??
    (leaf.endsWith("_template")
      ? { label: `${humanize(leaf.slice(0, -9))} prompt template`, help: "A Jinja file under prompt/." }
      : { label: humanize(leaf) });
  // The mappings a value sits in (a backend's block, "Sampling"…) say what it belongs to.
  const context: string[] = [];
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    if (backendSelectorOf(key)) continue;
    const parent = path[i - 1];
    if (parent !== undefined && backendSelectorOf(parent)) context.push(BACKEND_NAMES[key] ?? key);
    else context.push(GROUPS[key] ?? humanize(key));
  }
  return { label: [...context, words.label].join(" · "), ...(words.help ? { help: words.help } : {}) };
}

export interface ParamGroup {
  alias: string;
  server?: string;
  main: ParamField[];
  /** Settings of backends the alias does not use now. */
  otherBackends: ParamField[];
  /** Values no step of the pipeline reads. */
  unread: ParamField[];
}

const fieldAt = (fields: readonly ParamField[], alias: string, key: string) =>
  fields.find((f) => f.alias === alias && f.path.length === 1 && f.path[0] === key);

/** The backend a `*_backend_configs.<name>…` field belongs to, when the alias uses another one. */
function isOtherBackend(fields: readonly ParamField[], valueOf: (f: ParamField) => unknown, f: ParamField): boolean {
  const selector = f.path.length >= 2 ? backendSelectorOf(f.path[0]!) : undefined;
  if (!selector) return false;
  const selectorField = fieldAt(fields, f.alias, selector);
  if (!selectorField) return false;
  const chosen = valueOf(selectorField);
  return typeof chosen === "string" && chosen !== f.path[1];
}

/**
 * The form's groups: one per server alias; in each, the values the steps read first, then (for
 * "Advanced") the blocks of backends not in use — `backend_configs.vllm` while `backend` is openai,
 * the backend read with `valueOf` (the file as edited) — and the values no step reads.
 */
export function groupParams(fields: readonly ParamField[], valueOf: (f: ParamField) => unknown): ParamGroup[] {
  const groups = new Map<string, ParamGroup>();
  for (const f of fields) {
    let g = groups.get(f.alias);
    if (!g) {
      g = { alias: f.alias, ...(f.server ? { server: f.server } : {}), main: [], otherBackends: [], unread: [] };
      groups.set(f.alias, g);
    }
    if (f.read === false) g.unread.push(f);
    else if (isOtherBackend(fields, valueOf, f)) g.otherBackends.push(f);
    else g.main.push(f);
  }
  return [...groups.values()];
}

/** For a backend selector (`backend`, `index_backend`…): the backends its configs block offers. */
export function backendChoices(fields: readonly ParamField[], f: ParamField): string[] {
  if (f.path.length !== 1 || f.type !== "string") return [];
  const configs = `${f.path[0]}_configs`;
  if (backendSelectorOf(configs) !== f.path[0]) return [];
  const names = fields.filter((x) => x.alias === f.alias && x.path[0] === configs && x.path.length >= 2);
  return [...new Set(names.map((x) => x.path[1]!))];
}
