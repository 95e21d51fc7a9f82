/**
 * Loads what a project remembers of its false positives for a review (applied by
 * report/project-memory.ts): every dismissed fingerprint, and for the latest MAX_SIMILAR_SOURCES of
 * them the finding as it was last raised (rule, category, file, title), so findings similar to it lose
 * confidence. A dismissal whose finding no review holds any more is remembered by its fingerprint only.
 */
import type { Db } from "../db/client.ts";
import type { Dismissed } from "./report/project-memory.ts";

/** Bounds the similarity comparisons (and the query) on a project with a long memory. */
const MAX_SIMILAR_SOURCES = 500;

export async function falsePositiveMemory(db: Db, projectId: string): Promise<Dismissed[]> {
  const dismissals = await db.findingDismissal.findMany({
    where: { projectId },
    select: { fingerprint: true, createdAt: true },
    orderBy: [{ createdAt: "desc" }, { fingerprint: "asc" }],
  });
  const recent = dismissals.slice(0, MAX_SIMILAR_SOURCES);
  const rows = await db.reviewFinding.findMany({
    where: { projectId, fingerprint: { in: recent.map((d) => d.fingerprint) } },
    select: { fingerprint: true, title: true, category: true, file: true, ruleId: true },
    orderBy: { createdAt: "desc" },
  });
  const raised = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!raised.has(r.fingerprint)) raised.set(r.fingerprint, r);
  return dismissals.map((d): Dismissed => {
    const f = raised.get(d.fingerprint);
    return f ? { ...f, dismissedAt: d.createdAt } : d.fingerprint;
  });
}
