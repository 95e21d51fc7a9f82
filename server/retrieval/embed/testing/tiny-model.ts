/**
 * Writes a tiny transformers.js model folder for tests — no downloads, no weights from anywhere:
 * config.json, tokenizer.json (a BERT-style WordPiece vocabulary), tokenizer_config.json and
 * onnx/model.onnx, a graph mapping input_ids (+ attention_mask) to last_hidden_state:
 *
 *   mask = Unsqueeze(Cast(attention_mask, float), -1)
 *   last_hidden_state = Gather(embeddings, input_ids) * mask + (1 − mask) * padding_junk
 *
 * Like a real model's, the outputs at padded positions are not zero (here a fixed junk vector): an
 * embedder that forgets the attention mask when pooling gets different vectors in a padded batch
 * than one by one, which the tests can then catch.
 *
 * The vocabulary is grouped into topics and each word's row is its topic's axis plus a little
 * word-specific noise, so mean-pooled texts about one topic are measurably closer to each other than
 * to texts about another — the property a retrieval test can then assert through the real stack
 * (tokenizer → ONNX Runtime → pooling).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { encodeOnnxModel, ONNX_FLOAT, ONNX_INT64 } from "./onnx-writer.ts";

export const TINY_TOPICS: Record<string, string[]> = {
  database: ["sql", "query", "table", "index", "row", "column", "select", "database", "schema", "join"],
  network: ["http", "socket", "port", "server", "request", "client", "tcp", "network", "header", "proxy"],
  interface: ["button", "click", "render", "color", "layout", "screen", "font", "style", "widget", "theme"],
};
const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] as const;
const SUFFIXES = ["##s", "##ing", "##ed"];

export interface TinyModelOptions {
  /** Hidden size (vector dims); at least the number of topics. Default 16. */
  dims?: number;
  /** tokenizer_config.json model_max_length. Default 32. */
  maxLength?: number;
  /** Changes the word noise: two seeds give two different (incompatible) models. Default 1. */
  seed?: number;
  /** Leave these files out (to test the missing-file error). */
  omit?: string[];
}

export interface TinyModel {
  dir: string;
  dims: number;
  vocab: string[];
}

/** Deterministic pseudo-random numbers in [-1, 1) (mulberry32). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1;
  };
}

export async function writeTinyModel(dir: string, options: TinyModelOptions = {}): Promise<TinyModel> {
  const dims = options.dims ?? 16;
  const topics = Object.values(TINY_TOPICS);
  if (dims < topics.length) throw new Error(`tiny model: dims must be ≥ ${topics.length}`);
  const vocab = [...SPECIALS, ...topics.flat(), ...SUFFIXES];
  const rand = noise(options.seed ?? 1);

  const table = new Float32Array(vocab.length * dims);
  const row = (id: number, values: (d: number) => number) => {
    for (let d = 0; d < dims; d++) table[id * dims + d] = values(d);
  };
  // [PAD] stays zero. [UNK], [CLS], [SEP] and the suffixes: small vectors shared by every text, so
  // they pull all texts together a little without deciding which are similar.
  row(1, () => 0.05 * rand());
  row(2, () => 0.1);
  row(3, () => -0.05);
  let id = SPECIALS.length;
  topics.forEach((words, topic) => {
    for (const _ of words) row(id++, (d) => (d === topic ? 1 : 0) + 0.35 * rand());
  });
  for (const _ of SUFFIXES) row(id++, () => 0.1 * rand());

  const model = encodeOnnxModel({
    name: "tiny-embedder",
    initializers: [
      { name: "embeddings", dims: [vocab.length, dims], data: table },
      { name: "last_axis", dims: [1], data: BigInt64Array.from([-1n]) },
      { name: "one", dims: [], data: Float32Array.from([1]) },
      { name: "padding_junk", dims: [dims], data: Float32Array.from({ length: dims }, (_, d) => (d % 2 ? 2 : -3)) },
    ],
    nodes: [
      { opType: "Gather", inputs: ["embeddings", "input_ids"], outputs: ["token_vectors"], intAttributes: { axis: 0 } },
      { opType: "Cast", inputs: ["attention_mask"], outputs: ["mask_float"], intAttributes: { to: ONNX_FLOAT } },
      { opType: "Unsqueeze", inputs: ["mask_float", "last_axis"], outputs: ["mask_3d"] },
      { opType: "Mul", inputs: ["token_vectors", "mask_3d"], outputs: ["masked_vectors"] },
      { opType: "Sub", inputs: ["one", "mask_3d"], outputs: ["padding_3d"] },
      { opType: "Mul", inputs: ["padding_3d", "padding_junk"], outputs: ["padding_vectors"] },
      { opType: "Add", inputs: ["masked_vectors", "padding_vectors"], outputs: ["last_hidden_state"] },
    ],
    inputs: [
      { name: "input_ids", elemType: ONNX_INT64, shape: ["batch", "sequence"] },
      { name: "attention_mask", elemType: ONNX_INT64, shape: ["batch", "sequence"] },
    ],
    outputs: [{ name: "last_hidden_state", elemType: ONNX_FLOAT, shape: ["batch", "sequence", dims] }],
  });

  const specialToken = (content: string, i: number) => ({
    id: i,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const files: Record<string, string | Uint8Array> = {
    "config.json": JSON.stringify({
      model_type: "bert",
      architectures: ["BertModel"],
      hidden_size: dims,
      vocab_size: vocab.length,
      max_position_embeddings: 512,
    }),
    "tokenizer.json": JSON.stringify({
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: SPECIALS.map(specialToken),
      normalizer: {
        type: "BertNormalizer",
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: "BertPreTokenizer" },
      post_processor: { type: "BertProcessing", sep: ["[SEP]", 3], cls: ["[CLS]", 2] },
      decoder: { type: "WordPiece", prefix: "##", cleanup: true },
      model: {
        type: "WordPiece",
        unk_token: "[UNK]",
        continuing_subword_prefix: "##",
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab.map((w, i) => [w, i])),
      },
    }),
    "tokenizer_config.json": JSON.stringify({
      tokenizer_class: "BertTokenizer",
      do_lower_case: true,
      model_max_length: options.maxLength ?? 32,
      pad_token: "[PAD]",
      unk_token: "[UNK]",
      cls_token: "[CLS]",
      sep_token: "[SEP]",
    }),
    "onnx/model.onnx": model,
  };
  for (const [name, content] of Object.entries(files)) {
    if (options.omit?.includes(name)) continue;
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return { dir, dims, vocab };
}
