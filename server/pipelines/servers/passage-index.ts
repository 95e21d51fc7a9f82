/**
 * A retriever corpus as a LanceDB index, through the retrieval store (server/retrieval/store): one row
 * per passage (id = its position in the corpus file, text = `contents`), BM25 over `search_text` (the
 * passage's bm25 tokens) and vectors from the dense embedder. A BM25-only index carries a 1-dimension
 * zero vector (the store's schema wants one) and never an ANN index. Writes replace the whole index
 * atomically (a failed build leaves the previous one searchable).
 */
import type { EmbedderRecord } from "../../retrieval/embed/types.ts";
import {
  connect,
  createIndexCache,
  replaceIndex,
  type ChunkIndex,
  type ChunkRow,
  type IndexCache,
} from "../../retrieval/store/index.ts";

export const BM25_ONLY: EmbedderRecord = {
  name: "none",
  dims: 1,
  params: { purpose: "full text (bm25) only" },
  paramsHash: "bm25-only",
};

/** Rows for passages `first`, `first + 1`, … of the corpus (`contents[i]` is passage `first + i`). */
export function passageRows(
  contents: readonly string[],
  searchText: (i: number) => string,
  vectors?: readonly Float32Array[],
  first = 0,
): ChunkRow[] {
  return contents.map((text, i) => ({
    id: String(first + i),
    file: `passage:${first + i}`,
    language: "text",
    startLine: first + i + 1,
    endLine: first + i + 1,
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
  input: { embedder: EmbedderRecord; embedderState: unknown; rows: ChunkRow[] | AsyncIterable<ChunkRow[]> },
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

/** Index stores kept open, most recently used last. */
const open = new Map<string, IndexCache>();
const MAX_OPEN_STORES = 8;

/**
 * Runs `fn` on the named index (null when it was never built). Indexes stay open between calls, per
 * store directory (server/retrieval/store's IndexCache: a rebuilt index is noticed, an idle one is
 * closed): LanceDB caches what a search loads per open index — the first dense query at 100k
 * passages loads 0.6 s of it — so a pipeline that searches in a loop, or a server running many
 * pipelines, loads it once. `fn` must only read.
 */
export async function withPassageIndex<T>(
  uri: string,
  name: string,
  fn: (index: ChunkIndex | null) => Promise<T>,
): Promise<T> {
  let cache = open.get(uri);
  if (cache) open.delete(uri);
  else cache = createIndexCache(uri, { maxIdle: 4, idleMs: 5 * 60_000 });
  open.set(uri, cache);
  for (const [stale, c] of [...open].slice(0, Math.max(0, open.size - MAX_OPEN_STORES))) {
    open.delete(stale);
    void c.close().catch(() => undefined);
  }
  return cache.use(name, fn);
}
