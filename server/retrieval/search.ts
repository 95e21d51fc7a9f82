/**
 * Search over one chunk index: vector (the index's embedder), full text (BM25 over the body and
 * names fields, identifier-split, stemmed; store/indexes.ts) or hybrid (both, fused by normalised
 * scores; fusion.ts). Input is validated here with messages a user can act on; the store only ever
 * sees escaped filters and split query words.
 */
import { z } from "zod";
import { invalid } from "../errors.ts";
import { embedderForIndex } from "./embed/from-record.ts";
import type { Embedder } from "./embed/types.ts";
import { adaptiveWeights, fuse, fusionFor, rerankByRelevance } from "./fusion.ts";
import { dot, localEmbedderOf, relevanceFor } from "./hit-relevance.ts";
import type { MatchLabel } from "../shared/search-match.ts";
import { expansionWords, withoutQuestionWords } from "./text/expand.ts";
import { splitIdentifiersInText } from "./split-identifiers.ts";
import { globToRegex, sqlString, type ChunkIndex, type RankedRow, type StoredHit } from "./store/index.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { STOP_WORDS, terms } from "./text/terms.ts";

/** Longer queries are refused, not truncated: silently searching for a prefix would return results
 * that look authoritative for a question nobody asked. 8k characters holds any real code snippet. */
export const MAX_QUERY_CHARS = 8_192;
export const MAX_K = 1_000;
/** Distinct words of a long query sent to full text (see checkQuery). */
export const MAX_QUERY_WORDS = 256;
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
  /** The ranking score of the mode: cosine (vector), BM25 (fulltext), the fused score (hybrid; over
   * code, the fused share plus the weighted relevance the page is re-ordered by: fusion.ts). */
  score: number;
  /** How well the hit answers the query, comparable across queries (relevance.ts), 0–1. */
  relevance: number;
  /** `strong` from the calibrated threshold up; a query without a strong hit has no good match. */
  match: MatchLabel;
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
  checkQuery(query);
  const where = whereClause(filters);
  // Over code, "how do I …" and "where is …" frame the question without saying what it is about;
  // both legs search the rest (text/expand.ts). Over prose the question is worded like the text.
  const profile = profileOf(index);
  const asked = profile === "code" ? withoutQuestionWords(query) : query;
  const words = fullTextWords(asked, profile === "code" && mode !== "vector");

  // Built before any query runs: a mismatched embedder is refused even if full text would answer.
  const embedder = mode !== "fulltext" ? queryEmbedder(index, options.embedder) : null;
  const embed = async () => (await embedQueries(embedder!, [asked]))[0]!;
  const relevance = relevanceFor(
    index,
    asked,
    index.embedder.name === "local" ? localEmbedderOf(embedder ?? storedEmbedder(index)) : null,
  );
  if (mode === "vector") {
    const v = await embed();
    if (isZero(v)) return [];
    const hits = await index.vectorSearch(v, k, where);
    const rel = relevance.score(
      hits,
      hits.map((h) => h.score),
    );
    return hits.map((h, i) => toResult(h, h.score, { vector: h.score }, words, rel[i]!));
  }
  if (mode === "fulltext") {
    const hits = await index.fullTextSearch(words, k, where);
    const rel = relevance.score(hits, await relevance.cosines(hits));
    return hits.map((h, i) => toResult(h, h.score, { fulltext: h.score }, words, rel[i]!));
  }

  // Hybrid. Reading rows costs LanceDB ~0.25 ms a column per query and a random read per row: so
  // both legs read no column (addresses and scores only), run concurrently, and only the rows of the
  // final page (and of the feedback, on prose) are read, once.
  const settings = fusionFor(index.embedder);
  const depth = Math.max(k, settings.depth);
  const queryVector = embed();
  const [vectorRanks, textRanks] = await Promise.all([
    queryVector.then((v) => (isZero(v) ? [] : index.rankVector(v, depth, where))),
    index.rankFullText(words, depth, where),
  ]);
  const key = (r: { rowId: bigint }) => String(r.rowId);
  const scored = (ranks: readonly RankedRow[]) => ranks.map((r) => ({ key: key(r), score: r.score }));
  const textScores = scored(textRanks);
  let vector = vectorRanks;
  let fused = fuse(textScores, scored(vector), adaptiveWeights(textScores, scored(vector), settings), depth);
  const read = new Map<string, StoredHit>();
  const rowOf = new Map<string, RankedRow>([...textRanks, ...vectorRanks].map((r) => [key(r), r]));
  const readRows = async (keys: readonly string[]) => {
    const unread = keys.filter((k) => !read.has(k)).map((k) => rowOf.get(k)!);
    for (const h of await index.fetchHits(unread, { vectors: relevance.needsVectors })) read.set(key(h), h);
  };
  if (settings.feedback && fused.length && vector.length) {
    // Pseudo-relevance feedback: move the query vector towards the first ranking's best chunks.
    const top = fused.slice(0, settings.feedback.docs).map((f) => f.key);
    await readRows(top);
    const feedback = await embedQueries(
      embedder!,
      top.map((t) => read.get(t)!.text),
    );
    const q = Float32Array.from(await queryVector);
    const scale = settings.feedback.weight / feedback.length;
    for (const f of feedback) for (let i = 0; i < q.length; i++) q[i]! += scale * f[i]!;
    vector = await index.rankVector(q, depth, where);
    for (const r of vector) if (!rowOf.has(key(r))) rowOf.set(key(r), r);
    fused = fuse(textScores, scored(vector), adaptiveWeights(textScores, scored(vector), settings), depth);
  }
  // Over code the page is re-ordered by each hit's relevance too (fusion.ts rerankByRelevance); its
  // rows are read for the relevance anyway, so a page of at least rerank.depth costs a few rows more.
  const page = fused.slice(0, Math.max(k, settings.rerank?.depth ?? 0));
  await readRows(page.map((f) => f.key));
  const v = relevance.needsVectors ? await queryVector : null;
  const rows = page.map((f) => read.get(f.key)!);
  const rel = relevance.score(
    rows,
    rows.map((row) => (v && row.vector ? dot(v, row.vector) : undefined)),
  );
  const hits = page.map((f, i) => ({ f, row: rows[i]!, rel: rel[i]!, score: f.score }));
  // Reranked, a hit's score is the rerank's total (fused share + weight × relevance), so scores
  // still fall down the list.
  const ordered = settings.rerank
    ? rerankByRelevance(
        hits,
        hits.map((h) => h.rel.relevance),
        settings.rerank.weight,
        settings.rerank.translation ? relevance.translation(rows).map((t) => settings.rerank!.translation * t) : [],
      )
    : hits.map((hit) => ({ hit, score: hit.score }));
  return ordered.slice(0, k).map(({ hit: { f, row, rel }, score }) => {
    const scores: SearchResult["scores"] = {};
    if (f.vector !== undefined) scores.vector = f.vector;
    if (f.text !== undefined) scores.fulltext = f.text;
    return toResult(row, score, scores, words, rel);
  });
}

/** The index's kind of content: the local embedder's profile; other embedders are treated as code. */
function profileOf(index: ChunkIndex): "code" | "prose" {
  return index.embedder.name === "local" && index.embedder.params.profile === "prose" ? "prose" : "code";
}

/** The query's words for BM25, expanded (text/expand.ts) when `expand`. */
function fullTextWords(query: string, expand: boolean): string {
  const words = checkQuery(query);
  if (!expand) return words;
  const extra = expansionWords(words.split(" "));
  return extra.length ? `${words} ${extra.join(" ")}` : words;
}

/** Query vectors: the embedder's query side when it has one. */
function embedQueries(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  return embedder.embedQueries ? embedder.embedQueries(texts) : embedder.embed(texts);
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
  const list = words.split(" ");
  if (list.every((w) => STOP_WORDS.has(w)))
    throw invalid(
      `The search query has only common words (${[...new Set(list)].slice(0, 8).join(", ")}), which search ignores because nearly every text has them. Add a word that names what you are looking for.`,
    );
  // Pasted code repeats itself: BM25 needs each word once (a repeat only adds the same clue), and a
  // few hundred distinct words are plenty to rank by.
  if (list.length > MAX_QUERY_WORDS) return [...new Set(list)].slice(0, MAX_QUERY_WORDS).join(" ");
  return words;
}

/** A query vector of zeros (no term the embedder knows: a single letter, a one-off word for the
 * hash embedder) is similar to nothing; ranking by it would list chunks in arbitrary order. */
function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
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

/** A few lines of the chunk, starting at the first one that contains a query word (else the top).
 * Words are compared as search matched them: split and stemmed (`passwords` finds `hashPassword`). */
function snippetOf(text: string, words: string): { snippet: string; offset: number } {
  const lines = text.split("\n");
  const wanted = new Set(terms(words).filter((w) => w.length > 1));
  let at = lines.findIndex((l) => terms(l).some((w) => wanted.has(w)));
  if (at < 0) at = 0;
  const from = Math.max(0, at - 1);
  return { snippet: lines.slice(from, from + SNIPPET_LINES).join("\n"), offset: from };
}

function toResult(
  h: StoredHit,
  score: number,
  scores: SearchResult["scores"],
  words: string,
  r: { relevance: number; match: MatchLabel },
): SearchResult {
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
    relevance: r.relevance,
    match: r.match,
    scores,
    text: h.text,
  };
}
