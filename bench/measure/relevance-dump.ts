/**
 * Dumps, per set and query, what fusion and the relevance score are computed from — both legs'
 * rankings (full text with and without query expansion, vector), and for the candidates the
 * features relevance.ts uses (the cosine read from the stored vector, as search.ts does) — so that fusion and the calibration can be tuned offline on the
 * DEVELOPMENT halves (bench/measure/relevance-fit.ts). Queries of the test halves are dumped too,
 * flagged, for the tuner to leave alone. Nonsense queries (questions/nonsense.json) run against
 * every set's index.
 *
 *   node --import tsx bench/measure/relevance-dump.ts /tmp/relevance-dump
 *
 * SETS=codeJs,codePython dumps only those sets; DUMP_STORE=/tmp/dir keeps the indexes there and
 * reuses them on the next run (no re-indexing while trying a query-side change).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { embeddingText } from "../../server/retrieval/embed/embed-rows.ts";
import { LocalEmbedder } from "../../server/retrieval/embed/local.ts";
import { dot } from "../../server/retrieval/hit-relevance.ts";
import { hitFeatures, queryFeatures } from "../../server/retrieval/relevance.ts";
import { splitIdentifiersInText } from "../../server/retrieval/split-identifiers.ts";
import { connect, openChunkIndex, type RankedRow } from "../../server/retrieval/store/index.ts";
import { expansionWords, withoutQuestionWords } from "../../server/retrieval/text/expand.ts";
import { nonsenseQueries } from "../search/question-set.ts";
import { codeSets, cranfieldSet, indexSet, questionSets } from "../search/quality.ts";

const CRANFIELD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/data/cranfield");
const out = process.argv[2] ?? "/tmp/relevance-dump";
const DEPTH = 50;
const FEATURE_DEPTH = 20;
mkdirSync(out, { recursive: true });
const keep = process.env.DUMP_STORE;
const dir = keep ?? mkdtempSync(path.join(tmpdir(), "argus-relevance-"));
const store = await connect(path.join(dir, "lancedb"));
const only = process.env.SETS?.split(",");
try {
  const sets = [cranfieldSet(CRANFIELD_DIR), ...(await codeSets(400)), ...(await questionSets())].filter(
    (s) => !only || only.includes(s.name),
  );
  const nonsense = nonsenseQueries();
  for (const set of sets) {
    const t = performance.now();
    const index =
      (keep ? await openChunkIndex(store, set.name) : null) ??
      (await indexSet(store, set, path.join(dir, set.name))).index;
    const embedder = new LocalEmbedder(index.embedderState);
    const queries = [
      ...set.queries.map((q) => ({ text: q.text, half: q.half, kind: "real", gold: [...q.relevant.keys()] })),
      ...nonsense.map((text, i) => ({ text, half: i % 2 === 0 ? "dev" : "test", kind: "nonsense", gold: [] })),
    ];
    const rows = [];
    for (const q of queries) {
      const words = splitIdentifiersInText(q.text, { keepOriginal: true });
      const cleanText = withoutQuestionWords(q.text);
      const clean = splitIdentifiersInText(cleanText, { keepOriginal: true });
      const extra = expansionWords(clean.split(" "));
      const [text, textC, textX, vec, vecC] = await Promise.all([
        index.rankFullText(words, DEPTH),
        index.rankFullText(clean, DEPTH),
        index.rankFullText(`${clean} ${extra.join(" ")}`, DEPTH),
        embedder.embedQueries([q.text]).then(([v]) => index.rankVector(v!, DEPTH)),
        embedder.embedQueries([cleanText]).then(([v]) => index.rankVector(v!, DEPTH)),
      ]);
      const cands = new Map<string, RankedRow>();
      for (const list of [text, textC, textX, vec, vecC])
        for (const r of list.slice(0, FEATURE_DEPTH)) cands.set(String(r.rowId), r);
      const hits = await index.fetchHits([...cands.values()], { vectors: true });
      const terms = embedder.termWeights(cleanText);
      const [qv] = await embedder.embedQueries([cleanText]);
      const feats: Record<string, unknown> = {};
      for (const h of hits)
        feats[String(h.rowId)] = {
          doc: set.docOf(h.file),
          ...hitFeatures(terms, embedder.termSet(embeddingText(h))),
          cosine: h.vector ? dot(qv!, h.vector) : 0,
        };
      const list = (l: readonly RankedRow[]) => l.map((r) => [String(r.rowId), r.score]);
      rows.push({
        ...q,
        q: q.text,
        query: queryFeatures(terms),
        text: list(text),
        textC: list(textC),
        textX: list(textX),
        vec: list(vec),
        vecC: list(vecC),
        feats,
      });
    }
    index.close();
    writeFileSync(path.join(out, `${set.name}.json`), JSON.stringify({ name: set.name, kind: set.kind, rows }));
    process.stderr.write(`${set.name}: ${rows.length} queries in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  }
} finally {
  store.close();
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
