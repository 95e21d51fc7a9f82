/**
 * Two runs side by side: their evaluation metrics in one table (one row per step and metric, each
 * run's mean and the difference) and what differs in the parameters they ran with (one row per
 * changed leaf, dotted path `alias.key.sub`, lists compared whole). Pure: the service loads the runs.
 */
import type { EvalTable } from "./results.ts";

export interface MetricRow {
  step: string;
  metric: string;
  a: number | null;
  b: number | null;
  /** b − a when both have a mean. */
  delta: number | null;
}

export interface ParameterChange {
  path: string;
  change: "changed" | "added" | "removed";
  /** The value as YAML-ish text (JSON for objects and lists); null when that run had no such key. */
  a: string | null;
  b: string | null;
}

/** One row per (step, metric) either run has, in the order run A lists them, then B's extras. */
export function compareMetrics(a: readonly EvalTable[], b: readonly EvalTable[]): MetricRow[] {
  const key = (step: string, metric: string) => `${step}\u0000${metric}`;
  const means = (tables: readonly EvalTable[]) => {
    const m = new Map<string, number | null>();
    for (const t of tables) for (const r of t.rows) if (!r.compare) m.set(key(t.step, r.metric), r.mean);
    return m;
  };
  const [ma, mb] = [means(a), means(b)];
  const rows: MetricRow[] = [];
  const seen = new Set<string>();
  for (const tables of [a, b])
    for (const t of tables)
      for (const r of t.rows) {
        const k = key(t.step, r.metric);
        if (r.compare || seen.has(k)) continue;
        seen.add(k);
        const va = ma.get(k) ?? null;
        const vb = mb.get(k) ?? null;
        rows.push({ step: t.step, metric: r.metric, a: va, b: vb, delta: va !== null && vb !== null ? vb - va : null });
      }
  return rows;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function leaves(v: unknown, prefix: string, out: Map<string, unknown>) {
  if (isRecord(v) && Object.keys(v).length > 0) {
    for (const [k, child] of Object.entries(v)) leaves(child, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, v);
  return out;
}

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** The leaves that differ between two parameter sets, sorted by path. */
export function diffParameters(a: unknown, b: unknown): ParameterChange[] {
  const [la, lb] = [leaves(a, "", new Map()), leaves(b, "", new Map())];
  const paths = [...new Set([...la.keys(), ...lb.keys()])].sort();
  const changes: ParameterChange[] = [];
  for (const path of paths) {
    const inA = la.has(path);
    const inB = lb.has(path);
    if (inA && inB) {
      if (JSON.stringify(la.get(path)) !== JSON.stringify(lb.get(path)))
        changes.push({ path, change: "changed", a: show(la.get(path)), b: show(lb.get(path)) });
    } else if (inB) changes.push({ path, change: "added", a: null, b: show(lb.get(path)) });
    else changes.push({ path, change: "removed", a: show(la.get(path)), b: null });
  }
  return changes;
}
