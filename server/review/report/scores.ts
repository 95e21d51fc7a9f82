/**
 * Scores Argus computes from findings: every score of the static engine, and whatever score an agent
 * review's model left out (a review is never lost for a missing score). One formula for both:
 *
 *   score = round(100 · e^(−Σ weight(severity) / 100))   weights critical 40, high 20, medium 8, low 3, info 1
 *
 * over the report's findings (overall) or the findings of one category. The weights are the per-file
 * rollup's (rollup.ts); the exponential keeps a large project with many findings from reading 0
 * everywhere (one critical → 67, one high → 82, five highs → 37). Confidence is left out for the
 * reason rollup.ts gives: findings below the review's threshold are already gone, and a score that
 * moves with the model's self-assessment would be hard to explain.
 */
import { SEVERITY_WEIGHT } from "./rollup.ts";
import { CATEGORIES, type Category, type Finding, type Report, type ScoreKey } from "./schema.ts";

type Scored = Pick<Finding, "severity" | "category">;

export const SCORE_FORMULA =
  "100 · e^(−Σ severity weight / 100) over the findings, weights critical 40, high 20, medium 8, low 3, info 1";

export function scoreOf(findings: readonly Pick<Finding, "severity">[]): number {
  return Math.round(100 * Math.exp(-findings.reduce((s, f) => s + SEVERITY_WEIGHT[f.severity], 0) / 100));
}

/** Every score from the findings: overall, and each category that has findings. */
export function computeScores(findings: readonly Scored[]): Pick<Report, "overallScore" | "categoryScores"> {
  const categoryScores: Partial<Record<Category, number>> = {};
  for (const c of CATEGORIES) {
    const inCategory = findings.filter((f) => f.category === c);
    if (inCategory.length) categoryScores[c] = scoreOf(inCategory);
  }
  return { overallScore: scoreOf(findings), categoryScores };
}

export interface ModelScores {
  overall_score?: number | undefined;
  category_scores?: Partial<Record<Category, number | undefined>> | undefined;
}

/**
 * The model's scores, completed: a missing overall score, and a missing score of a category that has
 * findings, are computed from the findings. `computed` names what Argus filled in (empty: nothing).
 */
export function completeScores(
  model: ModelScores,
  findings: readonly Scored[],
): Pick<Report, "overallScore" | "categoryScores"> & { computed: ScoreKey[] } {
  const fromFindings = computeScores(findings);
  const computed: ScoreKey[] = [];
  const categoryScores: Partial<Record<Category, number>> = {};
  for (const c of CATEGORIES) {
    const given = model.category_scores?.[c];
    const derived = fromFindings.categoryScores[c];
    if (given !== undefined) categoryScores[c] = given;
    else if (derived !== undefined) {
      categoryScores[c] = derived;
      computed.push(c);
    }
  }
  if (model.overall_score === undefined) computed.unshift("overall");
  return { overallScore: model.overall_score ?? fromFindings.overallScore, categoryScores, computed };
}

/** The report note for scores Argus filled in, e.g. "Scores computed by Argus (…): overall, security. …". */
export function computedScoresNote(computed: readonly ScoreKey[]): string {
  return `Scores computed by Argus, as the model's report gave none: ${computed.join(", ")}. Formula: ${SCORE_FORMULA}.`;
}

/**
 * After a later stage removed findings (e.g. those outside a diff review's scope), the scores Argus
 * computed are computed again over what is left; the model's own scores stay as they were. A computed
 * category left without findings reads 100, so the note naming it stays true.
 */
export function recomputeScores(
  report: Pick<Report, "overallScore" | "categoryScores" | "computedScores">,
  findings: readonly Finding[],
): Pick<Report, "overallScore" | "categoryScores"> {
  const computed = new Set(report.computedScores ?? []);
  const categoryScores = { ...report.categoryScores };
  for (const c of CATEGORIES)
    if (computed.has(c)) categoryScores[c] = scoreOf(findings.filter((f) => f.category === c));
  return {
    overallScore: computed.has("overall") ? scoreOf(findings) : report.overallScore,
    categoryScores,
  };
}
