"use client";
/**
 * The findings list's filters and sort (severity, category, file, confidence, false positives, team
 * verdict) and what they leave: the visible findings in order, the files to choose from and the
 * per-severity counts of the badges. All in the browser, over the full list.
 */
import { useMemo, useState } from "react";
import { severityRank } from "./format.ts";
import { SEVERITIES, type ReviewFindingRow, type Severity } from "./types.ts";
import type { Verdict } from "@/server/shared/team-verdicts.ts";

export type SortKey = "severity" | "file" | "confidence" | "category";
export type FalsePositives = "show" | "hide" | "only";
/** A finding's team verdict for the filter: a verdict, split/unvoted ("unjudged"). */
export type TeamFilter = Verdict | "unjudged";

/** One collator for every comparison (`localeCompare` looks one up per call: slow over 2,000 findings). */
const collate = new Intl.Collator().compare;

const comparators: Record<SortKey, (a: ReviewFindingRow, b: ReviewFindingRow) => number> = {
  severity: (a, b) =>
    severityRank(a.severity) - severityRank(b.severity) ||
    b.confidence - a.confidence ||
    collate(a.file, b.file) ||
    a.startLine - b.startLine,
  file: (a, b) => collate(a.file, b.file) || a.startLine - b.startLine,
  confidence: (a, b) => b.confidence - a.confidence || severityRank(a.severity) - severityRank(b.severity),
  category: (a, b) => collate(a.category, b.category) || severityRank(a.severity) - severityRank(b.severity),
};

export function useFindingsFilters(findings: ReviewFindingRow[], teamVerdictOf?: (f: ReviewFindingRow) => TeamFilter) {
  const [team, setTeam] = useState<TeamFilter | "">("");
  const [severity, setSeverity] = useState<Severity | "">("");
  const [category, setCategory] = useState("");
  const [file, setFile] = useState("");
  const [minConfidence, setMinConfidence] = useState(0);
  const [sort, setSort] = useState<SortKey>("severity");
  const [falsePositives, setFalsePositives] = useState<FalsePositives>("show");

  const files = useMemo(() => [...new Set(findings.map((f) => f.file))].sort(), [findings]);
  const counts = useMemo(() => {
    const c = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const f of findings) if (!f.dismissed) c[f.severity as Severity] = (c[f.severity as Severity] ?? 0) + 1;
    return c;
  }, [findings]);
  const visible = useMemo(
    () =>
      findings
        .filter(
          (f) =>
            (!severity || f.severity === severity) &&
            (!category || f.category === category) &&
            (!file || f.file === file) &&
            f.confidence >= minConfidence &&
            (falsePositives === "show" || (falsePositives === "hide" ? !f.dismissed : f.dismissed)) &&
            (!team || !teamVerdictOf || teamVerdictOf(f) === team),
        )
        .sort(comparators[sort]),
    [findings, severity, category, file, minConfidence, sort, falsePositives, team, teamVerdictOf],
  );

  return {
    team,
    setTeam,
    severity,
    setSeverity,
    category,
    setCategory,
    file,
    setFile,
    minConfidence,
    setMinConfidence,
    sort,
    setSort,
    falsePositives,
    setFalsePositives,
    files,
    counts,
    visible,
  };
}

export type FindingsFilters = ReturnType<typeof useFindingsFilters>;
