/**
 * What a finished run's memory file says, for the run page: the evaluation table (every step that
 * wrote `eval_res`: `evaluate`'s per-item scores and means, `evaluate_trec`'s means,
 * `evaluate_trec_pvalue`'s comparison) and one case at a time (engine/cases.ts), long values cut.
 */
import { expandCases, type Snapshot } from "../engine/cases.ts";

export interface EvalRow {
  metric: string;
  /** The mean (evaluate's avg_<m>, or the TREC measure). */
  mean: number | null;
  /** evaluate's per-item scores. */
  perItem?: number[];
  /** evaluate_trec_pvalue's comparison: A_mean, B_mean, diff, p_value, significant. */
  compare?: Record<string, number | boolean>;
}

export interface EvalTable {
  step: string;
  rows: EvalRow[];
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function evaluationTables(snapshots: readonly Snapshot[]): EvalTable[] {
  const tables: EvalTable[] = [];
  for (const s of snapshots) {
    const res = s.memory.memory_eval_res ?? s.memory.eval_res;
    if (!res || typeof res !== "object" || Array.isArray(res)) continue;
    const r = res as Record<string, unknown>;
    const rows: EvalRow[] = [];
    for (const [k, v] of Object.entries(r)) {
      if (k.startsWith("avg_") && Object.hasOwn(r, k.slice(4))) continue;
      if (Array.isArray(v))
        rows.push({ metric: k, mean: num(r[`avg_${k}`]), perItem: v.map((x) => num(x) ?? Number.NaN) });
      else if (typeof v === "number") rows.push({ metric: k, mean: num(v) });
      else if (v && typeof v === "object") {
        const compare: Record<string, number | boolean> = {};
        for (const [ck, cv] of Object.entries(v as Record<string, unknown>))
          if (typeof cv === "number" || typeof cv === "boolean") compare[ck] = cv;
        rows.push({ metric: k, mean: null, compare });
      }
    }
    if (rows.length) tables.push({ step: s.step, rows });
  }
  return tables;
}

const MAX_TEXT = 4000;

function cut(v: unknown, depth = 0): unknown {
  if (typeof v === "string")
    return v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}… (${v.length - MAX_TEXT} more characters)` : v;
  if (depth > 6) return "…";
  if (Array.isArray(v)) {
    const items = v.slice(0, 50).map((x) => cut(x, depth + 1));
    return v.length > 50 ? [...items, `… ${v.length - 50} more`] : items;
  }
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, cut(x, depth + 1)]));
  return v;
}

/** Case `n` (1-based) of a run and how many there are. */
export function caseOf(snapshots: readonly Snapshot[], n: number) {
  const cases = expandCases(snapshots);
  const c = cases[Math.min(Math.max(n, 1), cases.length) - 1];
  return {
    count: cases.length,
    index: c?.index ?? 1,
    steps: (c?.steps ?? []).map((s) => ({ step: s.step, values: cut(s.values) as Record<string, unknown> })),
  };
}
