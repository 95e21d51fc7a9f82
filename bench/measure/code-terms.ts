/**
 * The doc-word → code-word table (server/retrieval/text/code-terms.ts) measured offline on the code
 * sets' DEVELOPMENT halves (HALF=test reports the test halves), from relevance-dump.ts's output and
 * the sets' document texts: production's ranking (adaptive fusion, the page re-ranked by relevance,
 * fusion.ts) with the translation score added to the re-rank at several weights (0: without it).
 * The query's terms are weighted by their IDF over the set, as the index's embedder weighs them.
 *
 *   node --import tsx bench/measure/relevance-dump.ts /tmp/relevance-dump
 *   node --import tsx bench/measure/code-terms.ts /tmp/relevance-dump [table.json …]
 *
 * Several tables are measured one after the other (the sets are read once); none: the shipped one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { adaptiveWeights, FUSION, fuse, rerankByRelevance, type Scored } from "../../server/retrieval/fusion.ts";
import { relevanceOf } from "../../server/retrieval/relevance.ts";
import {
  codeTermTable,
  tableFrom,
  translationScore,
  type CodeTermFile,
} from "../../server/retrieval/text/code-terms.ts";
import { withoutQuestionWords } from "../../server/retrieval/text/expand.ts";
import { terms } from "../../server/retrieval/text/terms.ts";
import { codeSets, questionSets } from "../search/quality.ts";

type List = [string, number][];
interface Row {
  q: string;
  half: "dev" | "test";
  kind: "real" | "nonsense";
  gold: string[];
  query: { terms: number; known: number };
  textX: List;
  vecC: List;
  feats: Record<string, { doc: string; coverage: number; matched: number; cosine: number }>;
}

const dir = process.argv[2] ?? "/tmp/relevance-dump";
const asIs = (s: string) => s;
const tableFiles = process.argv.slice(3);
const tables = tableFiles.length
  ? tableFiles.map((f) => tableFrom(JSON.parse(readFileSync(f, "utf8")) as CodeTermFile, asIs))
  : [codeTermTable(asIs)];
let table = tables[0]!;
const HALF = (process.env.HALF ?? "dev") as "dev" | "test";
/** TRANSLATED=0: the same score with the table's translations counted 0 (only the query's own words). */
const TRANSLATED = Number(process.env.TRANSLATED ?? 1);
const WEIGHTS = (process.env.WEIGHTS ?? "0,0.25,0.5,1,2").split(",").map(Number);
/** DEPTH=n: re-rank the first n fused hits instead of production's depth (at most the dump's 20 with features). */
const DEPTH = Number(process.env.DEPTH ?? FUSION.code.rerank.depth);
const dumps = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(`${dir}/${f}`, "utf8")) as { name: string; kind: string; rows: Row[] })
  .filter((d) => d.kind === "code");
const sets = new Map([...(await codeSets(400)), ...(await questionSets())].map((s) => [s.name as string, s]));
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const scored = (l: List): Scored[] => l.map(([key, score]) => ({ key, score }));

/** Production's ranking of one dumped query, the translation score × `weight` in the re-rank. */
function ranking(r: Row, weight: number, docTerms: (doc: string) => Set<string>, idf: (t: string) => number) {
  const s = FUSION.code;
  const t = scored(r.textX).slice(0, s.depth);
  const vec = scored(r.vecC).slice(0, s.depth);
  const fused = fuse(t, vec, adaptiveWeights(t, vec, s), s.depth);
  const q = [...new Set(terms(withoutQuestionWords(r.q)))].map((term) => ({ term, weight: idf(term) }));
  const page = fused.slice(0, DEPTH);
  const rel = page.map((f) => {
    const x = r.feats[f.key];
    return x ? relevanceOf("code", { ...x, terms: r.query.terms, known: r.query.known }) : 0;
  });
  const extra = page.map((f) => {
    const doc = r.feats[f.key]?.doc;
    return doc && weight ? weight * translationScore(table, q, docTerms(doc), TRANSLATED) : 0;
  });
  return [...rerankByRelevance(page, rel, s.rerank.weight, extra).map((x) => x.hit), ...fused.slice(page.length)];
}

function reciprocalRank(r: Row, keys: readonly string[]): number {
  const docs: string[] = [];
  for (const k of keys) {
    const d = r.feats[k]?.doc ?? `?${k}`;
    if (!docs.includes(d)) docs.push(d);
  }
  const i = docs.slice(0, 10).findIndex((d) => r.gold.includes(d));
  return i < 0 ? 0 : 1 / (i + 1);
}

const docTermsOf = new Map<string, (doc: string) => Set<string>>();
const idfOf = new Map<string, (t: string) => number>();
for (const d of dumps) {
  const set = sets.get(d.name)!;
  const cache = new Map<string, Set<string>>();
  docTermsOf.set(d.name, (doc) => {
    let s = cache.get(doc);
    if (!s) cache.set(doc, (s = new Set(terms(set.docs.get(doc) ?? ""))));
    return s;
  });
  const df = new Map<string, number>();
  for (const text of set.docs.values()) for (const t of new Set(terms(text))) df.set(t, (df.get(t) ?? 0) + 1);
  const n = set.docs.size;
  idfOf.set(d.name, (t) => Math.log((n + 1) / ((df.get(t) ?? 0) + 1)));
}
for (const [i, t] of tables.entries()) {
  table = t;
  console.log(
    `MRR@10, ${HALF} halves, ${tableFiles[i] ?? "the shipped table"}${DEPTH === FUSION.code.rerank.depth ? "" : `, re-rank depth ${DEPTH}`}`,
  );
  for (const weight of WEIGHTS) {
    const per = dumps.map((d) =>
      mean(
        d.rows
          .filter((r) => r.kind === "real" && r.half === HALF)
          .map((r) =>
            reciprocalRank(
              r,
              ranking(r, weight, docTermsOf.get(d.name)!, idfOf.get(d.name)!).map((f) => f.key),
            ),
          ),
      ),
    );
    console.log(
      `  ${`+ ${weight} × translation`.padEnd(22)} ${per.map((m, i) => `${dumps[i]!.name} ${m.toFixed(4)}`).join("  ")}  mean ${mean(per).toFixed(4)}`,
    );
  }
}
