/**
 * Embedding chunks into rows, in batches. The hash embedder is synchronous CPU work and imports run
 * inside the web process, so the event loop gets a turn between batches (requests are answered while
 * a large tree is embedded).
 */
import type { ChunkRow } from "../store/index.ts";
import type { Embedder } from "./types.ts";

const EMBED_BATCH = 256;

/** What an embedder sees of a chunk: where it lives, then the chunk (path words are strong evidence). */
export function embeddingText(c: Pick<ChunkRow, "file" | "symbolPath" | "text">): string {
  return `${c.file}\n${c.symbolPath ?? ""}\n${c.text}`;
}

export async function embedRows(
  embedder: Embedder,
  chunks: readonly Omit<ChunkRow, "vector">[],
  textOf: (c: Omit<ChunkRow, "vector">) => string,
  onBatch?: (done: number, total: number) => void,
): Promise<ChunkRow[]> {
  const out: ChunkRow[] = [];
  for (let i = 0; i < chunks.length; i += EMBED_BATCH) {
    const batch = chunks.slice(i, i + EMBED_BATCH);
    const vectors = await embedder.embed(batch.map(textOf));
    batch.forEach((c, j) => out.push({ ...c, vector: vectors[j]! }));
    onBatch?.(out.length, chunks.length);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}
