/**
 * Per-file rollup: one row per file with at least one finding (files without findings are not
 * listed; the review page shows them as clean).
 *
 *   score = max(0, 100 − Σ weight(severity))   critical 40, high 20, medium 8, low 3, info 1
 *
 * Confidence is not part of the score: findings below the review's confidence threshold are already
 * gone, and a score that moves with the model's self-assessment would be hard to explain. One critical
 * finding therefore puts a file at 60, three highs at 40. Rows are sorted worst first (files at risk).
 */
import { type FileRollup, type Finding, SEVERITIES, type Severity } from "./schema.ts";

export const SEVERITY_WEIGHT: Record<Severity, number> = { critical: 40, high: 20, medium: 8, low: 3, info: 1 };

export function rollupByFile(findings: readonly Pick<Finding, "file" | "severity">[]): FileRollup[] {
  const byFile = new Map<string, Record<Severity, number>>();
  for (const f of findings) {
    let counts = byFile.get(f.file);
    if (!counts)
      byFile.set(f.file, (counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>));
    counts[f.severity]++;
  }
  return [...byFile]
    .map(([path, counts]) => ({
      path,
      counts,
      score: Math.max(0, 100 - SEVERITIES.reduce((sum, s) => sum + counts[s] * SEVERITY_WEIGHT[s], 0)),
    }))
    .sort((a, b) => a.score - b.score || a.path.localeCompare(b.path));
}
