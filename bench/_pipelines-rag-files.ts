/**
 * bench/pipelines-rag.ts's pipeline workspace: the synthetic corpus and questions, the data, prompt,
 * pipeline and parameter files the runs read, and the retriever's parameters for each backend.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { PythonRandom } from "../server/pipelines/servers/python-random.ts";

/** Zipf-ish words from a 20k vocabulary: a few very common, a long tail (like real text). */
export function corpus(
  rand: PythonRandom,
  passageCount: number,
  questionCount: number,
): { passages: string[]; questions: string[] } {
  const vocab = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocab[Math.floor(vocab.length ** rand.random()) - 1]!;
  const passages = Array.from({ length: passageCount }, () => Array.from({ length: 60 }, word).join(" "));
  const questions = Array.from({ length: questionCount }, () => {
    const p = passages[Math.floor(rand.random() * passages.length)]!.split(" ");
    const at = Math.floor(rand.random() * 50);
    return p.slice(at, at + 6).join(" ");
  });
  return { passages, questions };
}

/** Writes the corpus (data/corpus.jsonl), the questions (data/q.jsonl) and the RAG prompt into `dir`. */
export function writeWorkspace(dir: string, { passages, questions }: { passages: string[]; questions: string[] }) {
  mkdirSync(path.join(dir, "data"));
  mkdirSync(path.join(dir, "parameter"));
  mkdirSync(path.join(dir, "prompt"));
  writeFileSync(
    path.join(dir, "data/corpus.jsonl"),
    passages.map((contents, id) => JSON.stringify({ id, contents })).join("\n"),
  );
  writeFileSync(
    path.join(dir, "data/q.jsonl"),
    questions.map((question, id) => JSON.stringify({ id, question, golden_answers: ["w1"] })).join("\n"),
  );
  writeFileSync(path.join(dir, "prompt/rag.jinja"), "Passages:\n{{documents}}\nQuestion: {{question}}");
}

/** A pipeline file: its servers and steps. */
export const yaml = (steps: string[], servers: string[]) =>
  `servers:\n${servers.map((s) => `  ${s}: servers/${s}`).join("\n")}\npipeline:\n${steps.map((s) => `- ${s}`).join("\n")}\n`;

/** Writes the parameter file of the pipeline `name`. */
export const writeParams = (dir: string, name: string, data: Record<string, unknown>) =>
  writeFileSync(path.join(dir, "parameter", `${name}_parameter.yaml`), JSON.stringify(data));

/** The retriever's parameters: BM25 or hash-dense (`backend` "hash"), the indexes under index/. */
export const retriever = (backend: string) => ({
  backend,
  model_name_or_path: "hash",
  backend_configs: { bm25: { lang: "en", tokenizer: "auto", save_path: "index/bm25" } },
  corpus_path: "data/corpus.jsonl",
  embedding_path: "index/emb.npy",
  index_backend: "faiss",
  index_backend_configs: { faiss: { index_path: "index/dense" } },
  top_k: 5,
  overwrite: false,
  batch_size: 16,
  gpu_ids: null,
  is_multimodal: false,
  is_demo: false,
  collection_name: "bench",
  query_instruction: "",
});
