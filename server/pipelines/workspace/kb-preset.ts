/**
 * "Try in a pipeline" from a knowledge base's page: the gallery's knowledge-base RAG pipeline with
 * every retriever reading that base (`collection_name: kb:<name>`).
 */
import { parsePipeline } from "../dsl/parse.ts";
import { builtinName } from "./catalog.ts";
import type { GalleryEntry } from "./gallery.ts";

/** The gallery pipeline "Try in a pipeline" forks. */
export const KB_PIPELINE = "kb_rag";

export const kbCollection = (name: string) => `kb:${name}`;

/** The entry's parameter file with each retriever alias's collection_name set to the base. */
export function withKnowledgeBase(entry: GalleryEntry, baseName: string): Record<string, unknown> {
  const pipeline = parsePipeline(entry.source, { file: `${entry.key}.yaml` }).pipeline;
  const out: Record<string, unknown> = { ...entry.parameters };
  for (const s of pipeline?.servers ?? []) {
    if (builtinName(s.path) !== "retriever") continue;
    const section = (out[s.alias] ?? {}) as Record<string, unknown>;
    out[s.alias] = { ...section, collection_name: kbCollection(baseName) };
  }
  return out;
}
