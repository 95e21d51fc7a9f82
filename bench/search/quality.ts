/**
 * The three quality sets, as files to index and judged queries, and their evaluation through the
 * production path (indexSnapshot, search()):
 *  - Cranfield (prose): nDCG@10, MAP over the top 100, Recall@100;
 *  - the JavaScript set (code-set.ts) and the Python standard-library set (python-set.ts):
 *    MRR@10, Recall@10.
 * Every set's queries are split in two halves by position — even positions the development half,
 * odd the test half. Settings are tuned on the development halves only (bench/measure/fusion.ts);
 * the test halves are reported beside them and never looked at while tuning.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { indexSnapshot } from "../../server/retrieval/index-snapshot.ts";
import { search, type SearchOptions } from "../../server/retrieval/search.ts";
import { openChunkIndex, type ChunkIndex, type Store } from "../../server/retrieval/store/index.ts";
import { bm25Index } from "./bm25.ts";
import { buildCodeSet, type CodeSet } from "./code-set.ts";
import { loadCranfield } from "./cranfield.ts";
import { averagePrecision, dedupe, mean, ndcgAt, recallAt, reciprocalRankAt } from "./metrics.ts";
import { buildPythonSet } from "./python-set.ts";
import { buildJsQuestions, buildPythonQuestions, type QuestionSet } from "./question-set.ts";

export const MODES = ["fulltext", "vector", "hybrid"] as const;
export type Mode = (typeof MODES)[number];
export type Half = "dev" | "test";

export interface JudgedQuery {
  text: string;
  /** Document id → gain (> 0). */
  relevant: Map<string, number>;
  half: Half;
}

export interface QualitySet {
  name: "cranfield" | "codeJs" | "codePython" | "questionsPython" | "questionsJs";
  kind: "prose" | "code";
  files: { path: string; text: string; language: string }[];
  /** The document a file is (Cranfield `12.txt` → `12`). */
  docOf: (file: string) => string;
  docs: Map<string, string>;
  queries: JudgedQuery[];
  /** Where the set came from, for the report. */
  source: Record<string, unknown>;
}

const halfOf = (i: number): Half => (i % 2 === 0 ? "dev" : "test");

export function cranfieldSet(dir: string): QualitySet {
  const cran = loadCranfield(dir);
  return {
    name: "cranfield",
    kind: "prose",
    files: [...cran.docs].map(([id, text]) => ({ path: `${id}.txt`, text, language: "text" })),
    docOf: (f) => f.replace(/\.txt$/, ""),
    docs: cran.docs,
    queries: cran.queries.map((q, i) => ({ text: q.text, relevant: q.relevant, half: halfOf(i) })),
    source: {
      documents: cran.docs.size,
      queries: cran.queries.length,
      relevance: "grades 1-4 relevant; nDCG gain 5 - grade; MAP over the top 100",
    },
  };
}

function fromCodeSet(name: QualitySet["name"], set: CodeSet, language: string): QualitySet {
  return {
    name,
    kind: "code",
    files: set.docs.map((d) => ({ path: d.id, text: `${d.text}\n`, language })),
    docOf: (f) => f,
    docs: new Map(set.docs.map((d) => [d.id, d.text])),
    queries: set.queries.map((q, i) => ({ text: q.query, relevant: new Map([[q.gold, 1]]), half: halfOf(i) })),
    source: { documents: set.docs.length, queries: set.queries.length, packages: set.packages },
  };
}

export async function codeSets(queries = 400): Promise<QualitySet[]> {
  return [
    fromCodeSet("codeJs", await buildCodeSet(queries), "javascript"),
    fromCodeSet("codePython", await buildPythonSet(queries), "python"),
  ];
}

function fromQuestionSet(name: QualitySet["name"], set: QuestionSet, language: string): QualitySet {
  return {
    name,
    kind: "code",
    files: set.docs.map((d) => ({ path: d.id, text: `${d.text}\n`, language })),
    docOf: (f) => f,
    docs: new Map(set.docs.map((d) => [d.id, d.text])),
    queries: set.queries.map((q, i) => ({
      text: q.query,
      relevant: new Map(q.gold.map((g) => [g, 1])),
      half: halfOf(i),
    })),
    source: { documents: set.docs.length, queries: set.queries.length, packages: set.packages },
  };
}

/** The natural-language question sets (question-set.ts): Python's standard library, JavaScript packages. */
export async function questionSets(): Promise<QualitySet[]> {
  return [
    fromQuestionSet("questionsPython", await buildPythonQuestions(), "python"),
    fromQuestionSet("questionsJs", await buildJsQuestions(), "javascript"),
  ];
}

export function writeSet(set: QualitySet, root: string): void {
  for (const f of set.files) {
    mkdirSync(path.dirname(path.join(root, f.path)), { recursive: true });
    writeFileSync(path.join(root, f.path), f.text);
  }
}

/** Index the set through the production path (the default embedder unless options say otherwise). */
export async function indexSet(
  store: Store,
  set: QualitySet,
  root: string,
  options: Parameters<typeof indexSnapshot>[4] = {},
) {
  writeSet(set, root);
  const built = await indexSnapshot(
    store,
    set.name,
    root,
    set.files.map((f) => ({ path: f.path, language: f.language })),
    options,
  );
  return { built, index: (await openChunkIndex(store, set.name))! };
}

type Scores = Record<string, number>;
export type Figures = Record<"all" | Half, Scores>;

const r4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** A ranked list of document ids for each query → the set's metrics, over all queries and per half. */
export function score(set: QualitySet, ranked: readonly string[][]): Figures {
  const per = set.queries.map((q, i): Scores => {
    const r = ranked[i]!;
    if (set.kind === "prose")
      return {
        ndcg10: ndcgAt(10, r, q.relevant),
        map: averagePrecision(r.slice(0, 100), q.relevant),
        recall100: recallAt(100, r, q.relevant),
      };
    const gold = new Set(q.relevant.keys());
    // Recall@10 of a question with several right answers: found any of them (success@10).
    return { mrr10: reciprocalRankAt(10, r, gold), recall10: r.slice(0, 10).some((d) => gold.has(d)) ? 1 : 0 };
  });
  const avg = (keep: (i: number) => boolean): Scores => {
    const rows = per.filter((_, i) => keep(i));
    return Object.fromEntries(Object.keys(per[0] ?? {}).map((m) => [m, r4(mean(rows.map((r) => r[m]!)))]));
  };
  return {
    all: avg(() => true),
    dev: avg((i) => set.queries[i]!.half === "dev"),
    test: avg((i) => set.queries[i]!.half === "test"),
  };
}

/** How deep each query ranks: chunks asked for, documents kept. */
const depth = (set: QualitySet) => (set.kind === "prose" ? { chunks: 200, docs: 100 } : { chunks: 30, docs: 10 });

export async function rankSet(
  index: ChunkIndex,
  set: QualitySet,
  mode: Mode,
  options: SearchOptions = {},
): Promise<string[][]> {
  const { chunks, docs } = depth(set);
  const out: string[][] = [];
  for (const q of set.queries) {
    const hits = await search(index, q.text, { ...options, mode, k: chunks });
    out.push(dedupe(hits.map((h) => set.docOf(h.file))).slice(0, docs));
  }
  return out;
}

/** The literature's BM25 over the set's whole documents (bm25.ts). */
export function bm25Baseline(set: QualitySet): Figures {
  const index = bm25Index(set.docs);
  const { docs } = depth(set);
  return score(
    set,
    set.queries.map((q) => index.rank(q.text, docs)),
  );
}
