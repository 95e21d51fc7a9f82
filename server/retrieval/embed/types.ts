/**
 * The one shape every embedder has (hash, OpenAI-compatible endpoint, local transformers model), and
 * what an index records about the embedder that built it. Vectors from different embedders — or from
 * the same one with other parameters (dims, model, fitted IDF) — live in different spaces: comparing
 * them returns confident nonsense, so a query embedder that does not match the index is refused.
 */
import { z } from "zod";

export interface Embedder {
  /** Family: "hash", "openai", "transformers". */
  readonly name: string;
  readonly dims: number;
  /** One vector per input, in order, each of length `dims`. */
  embed(batch: string[]): Promise<Float32Array[]>;
  /** Vectors for search queries, when they are embedded differently from documents (the local
   * embedder weighs its segments by the index's profile); else `embed` serves both. */
  embedQueries?(batch: string[]): Promise<Float32Array[]>;
  /** What an index stores about this embedder (see EmbedderRecord). */
  record(): EmbedderRecord;
}

export const embedderRecordSchema = z.object({
  name: z.string().min(1),
  dims: z.number().int().positive(),
  /** Human-readable parameters (model id, dims, tokenizer version…), shown in the refusal message. */
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  /** Hash over everything that changes the vector space: params plus fitted state (an IDF table).
   * Two embedders produce comparable vectors exactly when name, dims and paramsHash are equal. */
  paramsHash: z.string().min(1),
});
export type EmbedderRecord = z.infer<typeof embedderRecordSchema>;

export class EmbedderMismatchError extends Error {
  constructor(
    readonly index: EmbedderRecord,
    readonly query: EmbedderRecord,
  ) {
    super(mismatchMessage(index, query));
    this.name = "EmbedderMismatchError";
  }
}

/** Throws EmbedderMismatchError unless `query` produces vectors comparable with the index's. */
export function assertSameEmbedder(index: EmbedderRecord, query: EmbedderRecord): void {
  if (index.name !== query.name || index.dims !== query.dims || index.paramsHash !== query.paramsHash)
    throw new EmbedderMismatchError(index, query);
}

function mismatchMessage(index: EmbedderRecord, query: EmbedderRecord): string {
  const describe = (r: EmbedderRecord) =>
    `${r.name} (${r.dims} dims${Object.entries(r.params)
      .map(([k, v]) => `, ${k}=${String(v)}`)
      .join("")}; params ${r.paramsHash.slice(0, 12)})`;
  const what =
    index.name !== query.name
      ? "a different embedder"
      : index.dims !== query.dims
        ? "a different dimension"
        : "different parameters or fitted state";
  return `This index was built with ${describe(index)}, but the query embedder is ${describe(query)}: ${what}, so its vectors are not comparable. Query with the index's embedder, or re-index with the new one.`;
}
