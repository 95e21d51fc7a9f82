/**
 * Search over one chunk index: vector (the index's embedder), full text (BM25 over identifier-split
 * text) or hybrid (both, fused by reciprocal rank). Input is validated here with messages a user can
 * act on; the store only ever sees escaped filters and split query words.
 */
import { z } from "zod";
import { invalid } from "../errors.ts";
import { embedderForIndex } from "./embed/from-record.ts";
import type { Embedder } from "./embed/types.ts";
import { reciprocalRankFusion } from "./rrf.ts";
import { splitIdentifiersInText } from "./split-identifiers.ts";
import { globToRegex, sqlString, type ChunkIndex, type StoredHit } from "./store/index.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";

/** Longer queries are refused, not truncated: silently searching for a prefix would return results
 * that look authoritative for a question nobody asked. 8k characters holds any real code snippet. */
export const MAX_QUERY_CHARS = 8_192;
export const MAX_K = 1_000;
/**
 * Hybrid fusion: weighted reciprocal rank fusion of the full-text ranking (BM25, as deep as
 * `hybridTextDepth(k)`, at most max(k, 100)) and the top HYBRID_VECTOR_DEPTH of the vector ranking,
 * with RRF constant HYBRID_RRF_K. With the hash embedder the vector ranking is much weaker than BM25
 * (Cranfield nDCG@10 0.16 vs 0.33; code MRR@10 0.30 vs 0.43), and equal-weight RRF (k 60, 100
 * candidates each) made hybrid worse than full text on both sets (0.28 and 0.42). A small vector vote
 * on its first page only lets it break BM25's ties and lift what BM25 ranked low, without displacing
 * BM25's deep results. One setting for both quality sets, picked by a sweep of k ∈ {5…60}, weight ∈
 * {0.15…1}, vector depth ∈ {10…all} on those same sets (no held-out data): the gains over full text
 * are small (nDCG@10 +0.003, MRR@10 +0.012), so re-check with `npm run bench -- search` when the
 * embedder changes — a stronger one (openai, transformers) deserves a larger weight. It also keeps the
 * vector query small (the ANN index's cost grows with k × refineFactor).
 */
export const HYBRID_TEXT_CANDIDATES = 100;
export const HYBRID_VECTOR_DEPTH = 10;
export const HYBRID_RRF_K = 20;
export const HYBRID_WEIGHTS = { fulltext: 1, vector: 0.15 } as const;

/**
 * How deep the full-text ranking must go for the fused top k to be exactly what fusing the whole
 * ranking gives. The k best full-text hits each score at least wt/(K+k); a chunk ranked below depth D
 * in full text scores under wt/(K+D+1) + wv/(K+1) (the vector's best vote), so once that is below
 * wt/(K+k) nothing deeper can enter. For k = 10 that is depth 19 instead of 100 — the full-text leg
 * is then ~1.5 ms faster at 250k chunks. The depth never exceeds max(k, HYBRID_TEXT_CANDIDATES): the
 * exact bound passes 100 from k = 45 and explodes towards k = 120 (beyond which vector-only hits may
 * enter the top k and no depth suffices); for k ≥ 45 the fusion stays the approximation it was.
 */
export function hybridTextDepth(k: number): number {
  const K = HYBRID_RRF_K;
  const { fulltext: wt, vector: wv } = HYBRID_WEIGHTS;
  const cap = Math.max(k, HYBRID_TEXT_CANDIDATES);
  const room = wt / (K + k) - wv / (K + 1);
  if (room <= 0) return cap;
  return Math.min(cap, Math.max(k, Math.ceil(wt / room - K)));
}

export const searchOptionsSchema = z.object({
  mode: z.enum(["vector", "fulltext", "hybrid"]).default("hybrid"),
  k: z.number().int().min(1).max(MAX_K).default(10),
  filters: z
    .object({
      pathGlob: z.string().optional(),
      language: z.string().min(1).optional(),
      symbolKind: z.string().min(1).optional(),
    })
    .default({}),
});
export type SearchOptions = z.input<typeof searchOptionsSchema> & {
  /** The embedder for vector/hybrid queries; default: rebuilt from the index (hash). */
  embedder?: Embedder;
  /** Also return each hit's whole chunk text (`text`); the search boxes show only the snippet. */
  withText?: boolean;
};

export interface SearchResult {
  file: string;
  startLine: number;
  endLine: number;
  symbolPath: string | null;
  language: string;
  snippet: string;
  /** The file line the snippet starts at (it is cut around the best-matching line of the chunk). */
  snippetStartLine: number;
  /** The ranking score of the mode: cosine (vector), BM25 (fulltext), weighted RRF (hybrid). */
  score: number;
  scores: { vector?: number; fulltext?: number };
  /** The whole chunk, when SearchOptions.withText asked for it. */
  text?: string;
}

export async function search(index: ChunkIndex, query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
  const results = await searchIndex(index, query, options);
  return options.withText ? results : results.map(({ text: _text, ...r }) => r);
}

async function searchIndex(index: ChunkIndex, query: string, options: SearchOptions): Promise<SearchResult[]> {
  const parsed = searchOptionsSchema.safeParse(options);
  if (!parsed.success)
    throw invalid(`Invalid search options: ${formatZodIssues(parsed.error, { separator: "; ", root: "options" })}`);
  const { mode, k, filters } = parsed.data;
  const words = checkQuery(query);
  const where = whereClause(filters);

  // Built before any query runs: a mismatched embedder is refused even if full text would answer.
  const embedder = mode !== "fulltext" ? queryEmbedder(index, options.embedder) : null;
  const embed = async () => (await embedder!.embed([query]))[0]!;
  if (mode === "vector")
    return (await index.vectorSearch(await embed(), k, where)).map((h) =>
      toResult(h, h.score, { vector: h.score }, words),
    );
  if (mode === "fulltext")
    return (await index.fullTextSearch(words, k, where)).map((h) => toResult(h, h.score, { fulltext: h.score }, words));

  // Hybrid. Reading rows costs LanceDB ~0.25 ms a column per query, almost regardless of how many
  // rows: so the full-text leg reads its (short, see hybridTextDepth) list whole, concurrently with a
  // vector leg that reads nothing, and only vector-only hits on the final page are read afterwards
  // (they can only get there when full text found fewer than k).
  const [vectorRanks, textHits] = await Promise.all([
    embed().then((v) => index.rankVector(v, HYBRID_VECTOR_DEPTH, where)),
    index.fullTextSearch(words, hybridTextDepth(k), where),
  ]);
  const key = (r: { rowId: bigint }) => String(r.rowId);
  const vScore = new Map(vectorRanks.map((r) => [key(r), r.score]));
  const textRows = new Map(textHits.map((h) => [key(h), h]));
  const fused = reciprocalRankFusion([vectorRanks.map(key), textHits.map(key)], HYBRID_RRF_K, [
    HYBRID_WEIGHTS.vector,
    HYBRID_WEIGHTS.fulltext,
  ]).slice(0, k);
  const unread = vectorRanks.filter((r) => !textRows.has(key(r)) && fused.some((f) => f.id === key(r)));
  const vectorRows = new Map((await index.fetchHits(unread)).map((h) => [key(h), h]));
  return fused.map((f) => {
    const row = textRows.get(f.id) ?? vectorRows.get(f.id)!;
    const scores: SearchResult["scores"] = {};
    if (vScore.has(f.id)) scores.vector = vScore.get(f.id)!;
    if (textRows.has(f.id)) scores.fulltext = row.score;
    return toResult(row, f.score, scores, words);
  });
}

/** Rebuilding the hash embedder from the stored IDF (zod parse, a Map of every feature, a hash
 * check) took 13 ms at 1.1k chunks and grows with the IDF table — most of a small index's query time. An index's stored embedder never
 * changes (a rebuild is a new ChunkIndex), so it is built once per opened index. */
const storedEmbedders = new WeakMap<ChunkIndex, Embedder>();

function queryEmbedder(index: ChunkIndex, supplied: Embedder | undefined): Embedder {
  if (supplied) return embedderForIndex(index.embedder, index.embedderState, supplied);
  return storedEmbedder(index);
}

/** The embedder an index stores (the hash embedder with its IDF), built once per opened index. */
export function storedEmbedder(index: ChunkIndex): Embedder {
  let e = storedEmbedders.get(index);
  if (!e) {
    e = embedderForIndex(index.embedder, index.embedderState);
    storedEmbedders.set(index, e);
  }
  return e;
}

/** The query's words for BM25 (identifiers split, the compound kept too), or a clear refusal. */
function checkQuery(query: string): string {
  if (typeof query !== "string" || !query.trim()) throw invalid("The search query is empty.");
  if (query.length > MAX_QUERY_CHARS)
    throw invalid(
      `The search query is ${query.length.toLocaleString("en")} characters long; the limit is ${MAX_QUERY_CHARS.toLocaleString("en")}. Search for a distinctive part of it.`,
    );
  const words = splitIdentifiersInText(query, { keepOriginal: true });
  if (!words) throw invalid("The search query has no letters or digits to search for.");
  return words;
}

function whereClause(filters: {
  pathGlob?: string | undefined;
  language?: string | undefined;
  symbolKind?: string | undefined;
}): string | undefined {
  const parts: string[] = [];
  if (filters.pathGlob !== undefined) parts.push(`regexp_like(file, ${sqlString(globToRegex(filters.pathGlob))})`);
  if (filters.language !== undefined) parts.push(`language = ${sqlString(filters.language)}`);
  if (filters.symbolKind !== undefined) parts.push(`array_has(symbol_kinds, ${sqlString(filters.symbolKind)})`);
  return parts.length ? parts.join(" AND ") : undefined;
}

const SNIPPET_LINES = 6;

/** A few lines of the chunk, starting at the first one that contains a query word (else the top). */
function snippetOf(text: string, words: string): { snippet: string; offset: number } {
  const lines = text.split("\n");
  const terms = new Set(words.split(" ").filter((w) => w.length > 1));
  let at = lines.findIndex((l) =>
    splitIdentifiersInText(l, { keepOriginal: true })
      .split(" ")
      .some((w) => terms.has(w)),
  );
  if (at < 0) at = 0;
  const from = Math.max(0, at - 1);
  return { snippet: lines.slice(from, from + SNIPPET_LINES).join("\n"), offset: from };
}

function toResult(h: StoredHit, score: number, scores: SearchResult["scores"], words: string): SearchResult {
  const { snippet, offset } = snippetOf(h.text, words);
  return {
    file: h.file,
    startLine: h.startLine,
    endLine: h.endLine,
    symbolPath: h.symbolPath,
    language: h.language,
    snippet,
    snippetStartLine: h.startLine + offset,
    score,
    scores,
    text: h.text,
  };
}
