/**
 * A review's findings as the findings list shows them: filtered and sorted, each with its dismissal,
 * who resolved it, and the team's votes and thread size.
 */
import type { Db } from "../db/client.ts";
import { parseTrace } from "../shared/findings.ts";
import type { FindingFilters } from "./inputs.ts";
import { severityRank, type Severity } from "./report/schema.ts";
import type { ReviewRow } from "./rows.ts";
import { teamSummary } from "./team.ts";

/** One collator for every comparison (`localeCompare` looks one up per call: slow over thousands of findings). */
const collate = new Intl.Collator().compare;

export async function findingRows(db: Db, r: ReviewRow, input: FindingFilters) {
  const [rows, dismissed] = await Promise.all([
    db.reviewFinding.findMany({
      where: {
        reviewId: r.id,
        severity: input.severity,
        category: input.category,
        file: input.file,
        confidence: input.minConfidence === undefined ? undefined : { gte: input.minConfidence },
      },
      take: input.limit,
    }),
    db.findingDismissal.findMany({ where: { projectId: r.projectId }, select: { fingerprint: true } }),
  ]);
  const gone = new Set(dismissed.map((d) => d.fingerprint));
  const team = await teamSummary(db, r.id, r.uid);
  const resolvers = await db.user.findMany({
    where: { id: { in: [...new Set(rows.flatMap((f) => (f.resolvedById ? [f.resolvedById] : [])))] } },
    select: { id: true, name: true },
  });
  const resolverName = new Map(resolvers.map((u) => [u.id, u.name]));
  const order: Record<typeof input.sort, (a: (typeof rows)[number], b: (typeof rows)[number]) => number> = {
    severity: (a, b) =>
      severityRank(a.severity as Severity) - severityRank(b.severity as Severity) ||
      b.confidence - a.confidence ||
      collate(a.file, b.file) ||
      a.startLine - b.startLine,
    file: (a, b) => collate(a.file, b.file) || a.startLine - b.startLine,
    confidence: (a, b) =>
      b.confidence - a.confidence || severityRank(a.severity as Severity) - severityRank(b.severity as Severity),
    category: (a, b) =>
      collate(a.category, b.category) || severityRank(a.severity as Severity) - severityRank(b.severity as Severity),
  };
  return rows.sort(order[input.sort]).map(({ id: _id, reviewId: _r, projectId: _p, resolvedById, trace, ...f }) => ({
    ...f,
    trace: parseTrace(trace),
    resolvedAt: f.resolvedAt?.toISOString() ?? null,
    resolvedBy: resolvedById ? (resolverName.get(resolvedById) ?? "A former member") : null,
    dismissed: gone.has(f.fingerprint),
    votes: team.get(f.fingerprint)?.votes ?? [],
    threadCount: team.get(f.fingerprint)?.threadCount ?? 0,
  }));
}
