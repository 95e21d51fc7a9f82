/**
 * One finding per location and weakness across the pre-pass's tools. Argus, ESLint, ruff and bandit
 * often flag the same call for the same reason (a taint finding at `subprocess.run(…, shell=True)`,
 * bandit's B602 and ruff's S602 on that line); the user should see it once. In order:
 *
 *   1. an import-only notice (bandit B403 "consider pickle") is left out: the use is checked at the call;
 *   2. findings of one weakness (weakness.ts) in one file whose lines overlap become one: Argus's
 *      (with its data-flow trace) is kept, else the surest; the others are named in its message
 *      ("also reported by bandit B602"), its confidence is the highest of them, its severity the
 *      worst — unless it is a taint finding, whose severity says where the data came from;
 *   3. a data-flow check of another tool (bandit B608 "SQL built from strings") on a file Argus's taint
 *      engine analysed to the end, for a weakness it follows, with no Argus finding there, is left
 *      out: the engine followed the data and found nothing untrusted reaching that call. Where the
 *      taint analysis stopped early (a note on the file) or does not run, such findings are kept.
 *
 * What was merged or left out is counted per tool, so the tool's run can say so.
 */
import type { Finding, Severity } from "./types.ts";
import { TAINT_WEAKNESSES, weaknessOf } from "./weakness.ts";

export interface MergeOptions {
  /** Files whose taint analysis ran to the end (no note): there, the taint engine decides data flows. */
  taintComplete: ReadonlySet<string>;
}

export interface MergeCounts {
  /** Folded into another tool's finding of the same weakness at the same place. */
  merged: number;
  /** Data-flow checks where the taint engine found no untrusted data. */
  noFlow: number;
  /** Notices of an import, not a use. */
  importOnly: number;
}

export interface MergeResult {
  findings: Finding[];
  /** By tool; tools with nothing merged or left out are absent. */
  counts: Record<string, MergeCounts>;
}

const RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
const TOOL_ORDER = ["argus", "bandit", "ruff", "eslint"];
const toolRank = (tool: string) => {
  const i = TOOL_ORDER.indexOf(tool);
  return i < 0 ? TOOL_ORDER.length : i;
};

/** Where the "also reported by" note goes: before the taint engine's "; flow: …" tail, if any. */
export function withAlsoReported(message: string, others: readonly string[]): string {
  if (others.length === 0) return message;
  const note = ` (also reported by ${others.join(", ")})`;
  const flowAt = message.lastIndexOf("; flow: ");
  return flowAt < 0 ? `${message}${note}` : `${message.slice(0, flowAt)}${note}${message.slice(flowAt)}`;
}

export function mergeFindings(findings: readonly Finding[], options: MergeOptions): MergeResult {
  const counts: Record<string, MergeCounts> = {};
  const count = (tool: string, key: keyof MergeCounts) => {
    counts[tool] ??= { merged: 0, noFlow: 0, importOnly: 0 };
    counts[tool][key]++;
  };
  // Argus first (taint findings with a trace before the rest), then the surest.
  const ordered = findings
    .map((f, i) => ({ f, i }))
    .sort(
      (a, b) =>
        toolRank(a.f.tool) - toolRank(b.f.tool) ||
        Number(!!b.f.trace?.length) - Number(!!a.f.trace?.length) ||
        b.f.confidence - a.f.confidence ||
        a.i - b.i,
    );
  const kept: { f: Finding; others: string[] }[] = [];
  const byPlace = new Map<string, { f: Finding; others: string[] }[]>();
  for (const { f } of ordered) {
    const w = weaknessOf(f);
    if (w.importOnly) {
      count(f.tool, "importOnly");
      continue;
    }
    if (!w.weakness) {
      kept.push({ f: { ...f }, others: [] });
      continue;
    }
    const key = `${f.file}\0${w.weakness}`;
    const same = byPlace.get(key) ?? [];
    // A tool's own findings stay apart (two sinks of one statement are two findings); another tool's
    // of the same weakness on overlapping lines is the same finding.
    const into = same.find((k) => k.f.tool !== f.tool && k.f.startLine <= f.endLine && f.startLine <= k.f.endLine);
    if (into) {
      const name = `${f.tool} ${f.ruleId}`;
      if (!into.others.includes(name)) into.others.push(name);
      count(f.tool, "merged");
      into.f.confidence = Math.max(into.f.confidence, f.confidence);
      if (!into.f.trace?.length && RANK[f.severity] < RANK[into.f.severity]) into.f.severity = f.severity;
      continue;
    }
    if (f.tool !== "argus" && w.flow && TAINT_WEAKNESSES.has(w.weakness) && options.taintComplete.has(f.file)) {
      count(f.tool, "noFlow");
      continue;
    }
    const entry = { f: { ...f }, others: [] as string[] };
    same.push(entry);
    byPlace.set(key, same);
    kept.push(entry);
  }
  return {
    findings: kept.map(({ f, others }) => (others.length ? { ...f, message: withAlsoReported(f.message, others) } : f)),
    counts,
  };
}

/** "2 merged into other tools' findings, 1 left out (no untrusted data reaches it), 2 import notices left out". */
export function describeMerge(c: MergeCounts | undefined): string | null {
  if (!c) return null;
  const parts = [
    c.merged ? `${c.merged} merged with another tool's finding of the same weakness on the same lines` : "",
    c.noFlow ? `${c.noFlow} left out where Argus's taint analysis found no untrusted data reaching the call` : "",
    c.importOnly ? `${c.importOnly} import-only notice${c.importOnly === 1 ? "" : "s"} left out` : "",
  ].filter(Boolean);
  return parts.length ? parts.join("; ") : null;
}
