/**
 * Ranking metrics over TREC files (spec §5.7 `evaluate_trec`), as trec_eval computes them: the run
 * is ranked by score (descending; ties by document id, descending, as trec_eval sorts), the rank
 * column is ignored, a document is relevant when its qrels grade is > 0, and only queries present in
 * both files are averaged. `ndcg@k` uses the grade as gain and log2(rank + 1) as discount; P@k
 * divides by k even when fewer documents were retrieved. Plus the paired permutation (sign-flip) test.
 */
import { ToolError } from "./define.ts";

export type Qrels = Map<string, Map<string, number>>;
export type Run = Map<string, { doc: string; score: number }[]>;

const fields = (line: string) => line.trim().split(/\s+/);

export function parseQrels(text: string, file: string): Qrels {
  const out: Qrels = new Map();
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const f = fields(line);
    const grade = Number(f[3]);
    if (f.length !== 4 || !Number.isFinite(grade))
      throw new ToolError(
        `${file}:${i + 1}: a qrels line is "<query> <iteration> <document> <grade>", got "${line.trim()}"`,
      );
    let q = out.get(f[0]!);
    if (!q) out.set(f[0]!, (q = new Map()));
    q.set(f[2]!, grade);
  });
  return out;
}

export function parseRun(text: string, file: string): Run {
  const out: Run = new Map();
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const f = fields(line);
    const score = Number(f[4]);
    if (f.length < 6 || !Number.isFinite(score))
      throw new ToolError(
        `${file}:${i + 1}: a run line is "<query> Q0 <document> <rank> <score> <tag>", got "${line.trim()}"`,
      );
    let q = out.get(f[0]!);
    if (!q) out.set(f[0]!, (q = []));
    q.push({ doc: f[2]!, score });
  });
  for (const list of out.values())
    list.sort((a, b) => b.score - a.score || (a.doc < b.doc ? 1 : a.doc > b.doc ? -1 : 0));
  return out;
}

/** The measure names per metric family: `mrr`, `map`, and one per k for the others. */
export function measureNames(metrics: readonly string[], ks: readonly number[]): string[] {
  const out: string[] = [];
  for (const m of metrics.map((x) => x.toLowerCase())) {
    if (m === "mrr" || m === "map") out.push(m);
    else if (m === "ndcg") out.push(...ks.map((k) => `ndcg@${k}`));
    else if (m === "precision" || m === "p") out.push(...ks.map((k) => `P@${k}`));
    else if (m === "recall") out.push(...ks.map((k) => `recall@${k}`));
    else throw new ToolError(`evaluation: unknown ranking metric '${m}'; use mrr, map, ndcg, precision or recall`);
  }
  return out;
}

/** One query's value of a measure. */
function measure(name: string, ranked: readonly string[], grades: ReadonlyMap<string, number>): number {
  const rel = (d: string) => (grades.get(d) ?? 0) > 0;
  const totalRelevant = [...grades.values()].filter((g) => g > 0).length;
  if (name === "mrr") {
    const at = ranked.findIndex(rel);
    return at < 0 ? 0 : 1 / (at + 1);
  }
  if (name === "map") {
    if (totalRelevant === 0) return 0;
    let found = 0;
    let sum = 0;
    ranked.forEach((d, i) => {
      if (rel(d)) sum += ++found / (i + 1);
    });
    return sum / totalRelevant;
  }
  const [family, kText] = name.split("@");
  const k = Number(kText);
  const top = ranked.slice(0, k);
  if (family === "P") return top.filter(rel).length / k;
  if (family === "recall") return totalRelevant ? top.filter(rel).length / totalRelevant : 0;
  // ndcg
  const dcg = top.reduce((s, d, i) => s + Math.max(0, grades.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

/** Per query (present in both files), per measure. */
export function perQuery(run: Run, qrels: Qrels, names: readonly string[]): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const [q, docs] of run) {
    const grades = qrels.get(q);
    if (!grades) continue;
    const ranked = docs.map((d) => d.doc);
    out.set(q, Object.fromEntries(names.map((n) => [n, measure(n, ranked, grades)])));
  }
  return out;
}

export function means(scores: Map<string, Record<string, number>>, names: readonly string[]): Record<string, number> {
  const n = scores.size;
  return Object.fromEntries(names.map((m) => [m, n ? [...scores.values()].reduce((s, r) => s + r[m]!, 0) / n : 0]));
}

/**
 * Two-sided paired permutation test on the per-query differences: each resample flips the sign of
 * every difference with probability ½; p = (resamples at least as extreme + 1) / (resamples + 1).
 */
export function permutationPValue(diffs: readonly number[], resamples: number, random: () => number): number {
  if (diffs.length === 0) return 1;
  const observed = Math.abs(diffs.reduce((s, d) => s + d, 0) / diffs.length);
  let extreme = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (const d of diffs) sum += random() < 0.5 ? -d : d;
    if (Math.abs(sum / diffs.length) >= observed - 1e-12) extreme++;
  }
  return (extreme + 1) / (resamples + 1);
}
