/**
 * Tuning hybrid fusion (server/retrieval/fusion.ts) and the local embedder's query weights
 * (embed/local.ts QUERY_WEIGHTS) on the DEVELOPMENT halves of the bench's sets only — the test halves
 * are never read here. Each set is indexed once through the production path; per query the two legs'
 * lists (as deep as the largest depth tried) are fetched once per query weighting, then every fusion
 * setting is scored offline. Prints the development metric (Cranfield nDCG@10, code MRR@10) per
 * setting and profile (prose: Cranfield; code: mean of the two code sets). Then vector feedback
 * (Rocchio on the fused top n, search.ts) per set at the best fusion settings of its profile.
 *
 *   node --import tsx bench/measure/fusion.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LocalEmbedder } from "../../server/retrieval/embed/local.ts";
import { FUSION, fuse, type Scored } from "../../server/retrieval/fusion.ts";
import { splitIdentifiersInText } from "../../server/retrieval/split-identifiers.ts";
import { connect } from "../../server/retrieval/store/index.ts";
import { dedupe, mean } from "../search/metrics.ts";
import { codeSets, cranfieldSet, indexSet, rankSet, score, type QualitySet } from "../search/quality.ts";

const CRANFIELD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/data/cranfield");
const DEPTHS = [20, 30, 50, 100];
const LATENT_SHARES = [0.3, 0.4, 0.5, 0.6, 0.72, 0.85, 1];
const VECTOR_WEIGHTS = [0.3, 0.5, 0.7, 1, 1.5, 2, 3];

interface Legs {
  text: (Scored & { doc: string })[];
  vector: Map<number, (Scored & { doc: string })[]>;
}

const dir = mkdtempSync(path.join(tmpdir(), "argus-fusion-"));
const store = await connect(path.join(dir, "lancedb"));
const sets = [cranfieldSet(CRANFIELD_DIR), ...(await codeSets(400))];
const results: { set: QualitySet; legs: Legs[] }[] = [];
for (const set of sets) {
  const dev = { ...set, queries: set.queries.filter((q) => q.half === "dev") };
  const { index } = await indexSet(store, dev, path.join(dir, set.name));
  const embedder = new LocalEmbedder(index.embedderState);
  const legs: Legs[] = [];
  for (const q of dev.queries) {
    const words = splitIdentifiersInText(q.text, { keepOriginal: true });
    const text = (await index.fullTextSearch(words, Math.max(...DEPTHS))).map((h) => ({
      key: String(h.rowId),
      score: h.score,
      doc: set.docOf(h.file),
    }));
    const vector = new Map<number, (Scored & { doc: string })[]>();
    for (const share of LATENT_SHARES) {
      const v = embedder.embedOne(q.text, { lexical: 1 - share, latent: share });
      const ranked = await index.rankVector(v, Math.max(...DEPTHS));
      const rows = await index.fetchHits(ranked);
      vector.set(
        share,
        rows.map((h) => ({ key: String(h.rowId), score: h.score, doc: set.docOf(h.file) })),
      );
    }
    legs.push({ text, vector });
  }
  index.close();
  results.push({ set: dev, legs });
  process.stderr.write(`${set.name}: ${dev.queries.length} development queries fetched\n`);
}

const metricOf = (set: QualitySet) => (set.kind === "prose" ? "ndcg10" : "mrr10");
const devScore = (set: QualitySet, ranked: string[][]) => score(set, ranked).dev[metricOf(set)]!;
const docsOf = (set: QualitySet) => (set.kind === "prose" ? 100 : 10);

const rows: { setting: string; bySet: Record<string, number> }[] = [];
for (const share of LATENT_SHARES) {
  const bySet: Record<string, number> = {};
  for (const { set, legs } of results)
    bySet[set.name] = devScore(
      set,
      legs.map((l) => dedupe(l.vector.get(share)!.map((h) => h.doc)).slice(0, docsOf(set))),
    );
  rows.push({ setting: `vector only, latent share ${share}`, bySet });
}
{
  const bySet: Record<string, number> = {};
  for (const { set, legs } of results)
    bySet[set.name] = devScore(
      set,
      legs.map((l) => dedupe(l.text.map((h) => h.doc)).slice(0, docsOf(set))),
    );
  rows.push({ setting: "fulltext only", bySet });
}
for (const depth of DEPTHS)
  for (const share of LATENT_SHARES)
    for (const w of VECTOR_WEIGHTS) {
      const bySet: Record<string, number> = {};
      for (const { set, legs } of results) {
        const ranked = legs.map((l) => {
          const text = l.text.slice(0, depth);
          const vector = l.vector.get(share)!.slice(0, depth);
          const doc = new Map([...text, ...vector].map((h) => [h.key, h.doc]));
          return dedupe(fuse(text, vector, { text: 1, vector: w }, depth).map((f) => doc.get(f.key)!)).slice(
            0,
            docsOf(set),
          );
        });
        bySet[set.name] = devScore(set, ranked);
      }
      rows.push({ setting: `combsum depth ${depth}, latent share ${share}, vector weight ${w}`, bySet });
    }

const prose = (r: (typeof rows)[number]) => r.bySet.cranfield!;
const code = (r: (typeof rows)[number]) => mean([r.bySet.codeJs!, r.bySet.codePython!]);
const fmt = (r: (typeof rows)[number]) =>
  `${r.setting.padEnd(60)} ${Object.entries(r.bySet)
    .map(([k, v]) => `${k} ${v.toFixed(4)}`)
    .join("  ")}`;
for (const r of rows.filter((r) => !r.setting.startsWith("combsum"))) console.log(fmt(r));
console.log("\nbest for prose (Cranfield dev):");
for (const r of [...rows].sort((a, b) => prose(b) - prose(a)).slice(0, 12)) console.log(fmt(r));
console.log("\nbest for code (mean of the code sets' dev):");
for (const r of [...rows].sort((a, b) => code(b) - code(a)).slice(0, 12)) console.log(fmt(r));

// Feedback: the production search() path with FUSION patched per setting (development queries only).
console.log("\nvector feedback (docs, weight), development halves:");
for (const set of sets) {
  const dev = { ...set, queries: set.queries.filter((q) => q.half === "dev") };
  const { index } = await indexSet(store, dev, path.join(dir, `${set.name}-fb`));
  const profile = set.kind === "prose" ? FUSION.prose : FUSION.code;
  const saved = { ...profile };
  const line: string[] = [];
  for (const feedback of [
    null,
    { docs: 3, weight: 1 },
    { docs: 3, weight: 2 },
    { docs: 5, weight: 1 },
    { docs: 5, weight: 2 },
    { docs: 10, weight: 1 },
  ]) {
    Object.assign(profile, { feedback });
    const ranked = await rankSet(index, dev, "hybrid");
    line.push(`${feedback ? `${feedback.docs}/${feedback.weight}` : "none"} ${devScore(dev, ranked).toFixed(4)}`);
  }
  Object.assign(profile, saved);
  index.close();
  console.log(`${set.name.padEnd(12)} ${line.join("  ")}`);
}
store.close();
rmSync(dir, { recursive: true, force: true });
