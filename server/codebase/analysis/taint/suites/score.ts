/**
 * Scores findings against the suites, two ways:
 * - by line (per weakness and language): a finding of the weakness's rule on a `vuln:` line is a true
 *   positive; a `vuln:` line without one a false negative; a finding of that rule anywhere else a
 *   false positive. Precision, recall, F1.
 * - by case (each case is its own file set, vulnerable or safe): flagged when any finding of the
 *   case's weakness is in it. TPR, FPR, precision; and the share of safe look-alikes with any finding.
 */
import { WEAKNESSES } from "../report.ts";
import type { Weakness } from "../values.ts";
import type { SuiteCase, SuiteLanguage } from "./load.ts";

export interface ScoredFinding {
  file: string;
  startLine: number;
  endLine: number;
  ruleId: string;
}

export interface LineScore {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface CaseScore {
  vulnerable: number;
  safe: number;
  tpr: number;
  fpr: number;
  precision: number;
  /** TPR − FPR (Youden's J). */
  j: number;
}

export interface SuiteScore {
  language: SuiteLanguage;
  cases: number;
  byLine: Record<string, LineScore>;
  byCase: Record<string, CaseScore>;
  /** Safe look-alikes with any finding at all (of any rule). */
  safeFlagged: { flagged: number; of: number; share: number };
}

export function weaknessOf(ruleId: string): Weakness | null {
  for (const [w, spec] of Object.entries(WEAKNESSES) as [Weakness, (typeof WEAKNESSES)[Weakness]][])
    if (ruleId === spec.ruleId || ruleId.startsWith(`${spec.ruleId}/`)) return w;
  return null;
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);
const round = (x: number) => Math.round(x * 1000) / 1000;

function lineScore(tp: number, fp: number, fn: number): LineScore {
  const precision = ratio(tp, tp + fp);
  const recall = ratio(tp, tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, precision: round(precision), recall: round(recall), f1: round(f1) };
}

export function scoreSuite(language: SuiteLanguage, all: SuiteCase[], findings: ScoredFinding[]): SuiteScore {
  const cases = all.filter((c) => c.language === language);
  const fileCase = new Map<string, SuiteCase>();
  for (const c of cases) for (const f of c.files) fileCase.set(f.path, c);
  const mine = findings.filter((f) => fileCase.has(f.file));

  const counts = new Map<string, { tp: number; fp: number; fn: number }>();
  const bump = (w: string, k: "tp" | "fp" | "fn") => {
    const c = counts.get(w) ?? { tp: 0, fp: 0, fn: 0 };
    c[k]++;
    counts.set(w, c);
  };
  const matched = new Set<ScoredFinding>();
  for (const c of cases)
    for (const file of c.files)
      for (const v of file.vulnerable) {
        const hit = mine.filter(
          (f) =>
            f.file === file.path && f.startLine <= v.line && v.line <= f.endLine && weaknessOf(f.ruleId) === v.weakness,
        );
        hit.forEach((h) => matched.add(h));
        bump(v.weakness, hit.length ? "tp" : "fn");
      }
  for (const f of mine) {
    if (matched.has(f)) continue;
    const w = weaknessOf(f.ruleId);
    if (!w) continue;
    // A second finding on a line that is already a true positive for the weakness is not a false alarm.
    const c = fileCase.get(f.file)!;
    const file = c.files.find((x) => x.path === f.file)!;
    if (file.vulnerable.some((v) => v.weakness === w && f.startLine <= v.line && v.line <= f.endLine)) continue;
    bump(w, "fp");
  }
  const byLine: Record<string, LineScore> = {};
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [w, c] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    byLine[w] = lineScore(c.tp, c.fp, c.fn);
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  byLine.ALL = lineScore(tp, fp, fn);

  const byCase: Record<string, CaseScore> = {};
  const groups = new Map<string, SuiteCase[]>();
  for (const c of cases) groups.set(c.weakness, [...(groups.get(c.weakness) ?? []), c]);
  groups.set("ALL", cases);
  let safeFlagged = 0;
  let safeTotal = 0;
  for (const [w, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    let t = 0;
    let f = 0;
    let pos = 0;
    let neg = 0;
    for (const c of group) {
      const paths = new Set(c.files.map((x) => x.path));
      const flagged = mine.some((x) => paths.has(x.file) && weaknessOf(x.ruleId) === c.weakness);
      if (c.vulnerable) {
        pos++;
        if (flagged) t++;
      } else {
        neg++;
        if (flagged) f++;
        if (w === "ALL") {
          safeTotal++;
          if (mine.some((x) => paths.has(x.file))) safeFlagged++;
        }
      }
    }
    const tpr = ratio(t, pos);
    const fpr = neg ? f / neg : 0;
    byCase[w] = {
      vulnerable: pos,
      safe: neg,
      tpr: round(tpr),
      fpr: round(fpr),
      precision: round(ratio(t, t + f)),
      j: round(tpr - fpr),
    };
  }
  return {
    language,
    cases: cases.length,
    byLine,
    byCase,
    safeFlagged: {
      flagged: safeFlagged,
      of: safeTotal,
      share: round(ratio(safeFlagged, safeTotal || 1) * (safeTotal ? 1 : 0)),
    },
  };
}
