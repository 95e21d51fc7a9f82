/**
 * A retriever corpus as a LanceDB index, through the retrieval store (server/retrieval/store): one row
 * per passage (id = its position in the corpus file, text = `contents`), BM25 over `search_text` (the
 * passage's bm25 tokens) and vectors from the dense embedder. A BM25-only index carries a 1-dimension
 * zero vector (the store's schema wants one) and never an ANN index. Writes replace the whole index
 * atomically (a failed build leaves the previous one searchable).
 */
import type { EmbedderRecord } from "../../retrieval/embed/types.ts";
import { connect, openChunkIndex, replaceIndex, type ChunkIndex, type ChunkRow } from "../../retrieval/store/index.ts";

export const BM25_ONLY: EmbedderRecord = {
  name: "none",
  dims: 1,
  params: { purpose: "full text (bm25) only" },
  paramsHash: "bm25-only",
};

export function passageRows(
  contents: readonly string[],
  searchText: (i: number) => string,
  vectors?: readonly Float32Array[],
): ChunkRow[] {
  return contents.map((text, i) => ({
    id: String(i),
    file: `passage:${i}`,
    language: "text",
    startLine: i + 1,
    endLine: i + 1,
    symbolPath: null,
    symbolKinds: [],
    text,
    searchText: searchText(i),
    contentHash: "",
    vector: vectors ? vectors[i]! : new Float32Array(1),
  }));
}

export async function buildPassageIndex(
  uri: string,
  name: string,
  input: { embedder: EmbedderRecord; embedderState: unknown; rows: ChunkRow[] },
): Promise<{ rows: number; ms: number }> {
  const store = await connect(uri);
  try {
    const t0 = performance.now();
    const res = await replaceIndex(store, name, {
      ...input,
      ...(input.embedder === BM25_ONLY ? { annThreshold: Number.MAX_SAFE_INTEGER } : {}),
    });
    return { rows: res.rows, ms: performance.now() - t0 };
  } finally {
    store.close();
  }
}

/** Runs `fn` on the named index (null when it was never built), closing it after. */
export async function withPassageIndex<T>(
  uri: string,
  name: string,
  fn: (index: ChunkIndex | null) => Promise<T>,
): Promise<T> {
  const store = await connect(uri);
  try {
    const index = await openChunkIndex(store, name);
    try {
      return await fn(index);
    } finally {
      index?.close();
    }
  } finally {
    store.close();
  }
}
