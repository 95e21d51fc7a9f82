/**
 * From the model's REPORT to the stored Report, through the noise-control stages in this order (each
 * counted in `stages`, so the report can say what every stage removed):
 *
 *   1. location: file and lines checked against the snapshot (locate.ts) — repaired or dropped
 *   2. fingerprint (fingerprint.ts) and dedupe: same fingerprint → one finding (worst severity,
 *      highest confidence, the union of their line ranges)
 *   3. dismissed: fingerprints the project marked false positive are dropped; findings similar to one
 *      of them lose confidence (project-memory.ts), so stage 4 may drop them
 *   4. confidence threshold, 5. severity floor (settings of the review)
 *   6. verification (optional, the costly step last so it runs only on survivors): confirmed → kept as
 *      "confirmed"; not confirmed → dropped or kept as "unverified" per settings.unverified; not run
 *      (budget spent, cancelled, provider error) → kept as "not_run", never silently dropped.
 *
 * Findings are sorted worst first; the per-file rollup is rollup.ts. Scores the model left out are
 * computed from the kept findings (scores.ts); an agent report then says so in a note and lists them
 * in `computedScores` (every static score is Argus's, its engine label says so).
 */
import type { TraceStep } from "../../shared/findings.ts";
import { emptyStageCounts } from "../../shared/stages.ts";
import { fingerprint, normalisePath, locateEvidence } from "../../agent/index.ts";
import { rollupByFile } from "./rollup.ts";
import { completeScores, computedScoresNote, type ModelScores } from "./scores.ts";
import { applyProjectMemory, memoryNote, type Dismissed } from "./project-memory.ts";
import {
  type Finding,
  type ModelReport,
  type Report,
  type ReviewSettings,
  type StageCounts,
  atLeast,
  reviewSettingsSchema,
  severityRank,
} from "./schema.ts";

/** Reads a snapshot file (the Sandbox); null when it does not exist or may not be read. */
export type ReadFile = (path: string) => Promise<string | null>;

export interface VerificationResult {
  verdict: "confirmed" | "rejected" | "not_run";
  note?: string;
}
/** Verdicts by fingerprint, plus notes for the report (e.g. "verification stopped: the budget is spent"). */
export type Verifier = (findings: Finding[]) => Promise<{ results: Map<string, VerificationResult>; notes?: string[] }>;

/** A proposed finding; the static engine's carry the rule that raised them (kept on the finding;
 * not part of its identity: two tools flagging the same lines for the same reason are one finding). */
export type ProposedFinding = ModelReport["findings"][number] & { ruleId?: string; trace?: TraceStep[] };

export interface BuildReportInput {
  /** Scores left out are computed (scores.ts). */
  model: Pick<ModelReport, "summary"> & ModelScores & { findings: ProposedFinding[] };
  /** Who proposed the findings (default: the agent). */
  engine?: "agent" | "static";
  readFile: ReadFile;
  settings?: Partial<ReviewSettings>;
  /** What the project marked false positive: fingerprints, or the remembered findings (project-memory.ts). */
  dismissed?: Iterable<Dismissed>;
  engineLabel: string;
  notes?: string[];
  /** Runs when settings.verify is on and findings survive the cheaper stages. */
  verify?: Verifier;
}

export async function buildReport(input: BuildReportInput): Promise<Report> {
  const settings = reviewSettingsSchema.parse(input.settings ?? {});
  const notes = [...(input.notes ?? [])];
  const stages: StageCounts = emptyStageCounts(input.model.findings.length);

  // 1. location
  const files = new Map<string, Promise<string | null>>();
  const read = (p: string) => {
    if (!files.has(p))
      files.set(
        p,
        input.readFile(p).catch(() => null),
      );
    return files.get(p)!;
  };
  let located: Finding[] = [];
  for (const m of input.model.findings) {
    const file = normalisePath(m.file);
    const content = file && !file.split("/").includes("..") ? await read(file) : null;
    const where =
      content === null
        ? ({ status: "dropped" } as const)
        : locateEvidence(content, { startLine: m.start_line, endLine: m.end_line, evidence: m.evidence });
    if (where.status === "dropped") {
      stages.droppedUnlocatable++;
      continue;
    }
    if (where.status === "repaired") stages.repairedLocation++;
    const finding: Finding = {
      fingerprint: "",
      title: m.title,
      severity: m.severity,
      confidence: m.confidence,
      category: m.category,
      file,
      startLine: where.startLine,
      endLine: where.endLine,
      evidence: where.evidence,
      explanation: m.explanation,
      ...(m.suggested_fix ? { suggestedFix: m.suggested_fix } : {}),
      ...(m.diff ? { diff: m.diff } : {}),
      verification: "not_run",
      source: input.engine ?? "agent",
      ...(m.ruleId ? { ruleId: m.ruleId } : {}),
      ...(m.trace?.length ? { trace: m.trace.map((s) => ({ ...s, file: normalisePath(s.file) })) } : {}),
    };
    finding.fingerprint = fingerprint(finding);
    located.push(finding);
  }

  // 2. dedupe
  const byPrint = new Map<string, Finding>();
  for (const f of located) {
    const seen = byPrint.get(f.fingerprint);
    if (!seen) {
      byPrint.set(f.fingerprint, f);
      continue;
    }
    stages.droppedDuplicate++;
    const worse = severityRank(f.severity) < severityRank(seen.severity) ? f : seen;
    const trace = worse.trace ?? f.trace ?? seen.trace;
    byPrint.set(f.fingerprint, {
      ...worse,
      ...(trace ? { trace } : {}),
      confidence: Math.max(f.confidence, seen.confidence),
      startLine: Math.min(f.startLine, seen.startLine),
      endLine: Math.max(f.endLine, seen.endLine),
    });
  }
  located = [...byPrint.values()];

  // 3. dismissed (and similar ones lowered), 4–5. confidence, severity
  const memory = applyProjectMemory(located, input.dismissed ?? []);
  stages.droppedDismissed += memory.droppedDismissed;
  let loweredBelow = 0;
  let kept = memory.findings.filter((f) => {
    if (f.confidence < settings.minConfidence) {
      stages.droppedBelowConfidence++;
      if (memory.lowered.has(f.fingerprint)) loweredBelow++;
    } else if (!atLeast(f.severity, settings.minSeverity)) stages.droppedBelowSeverity++;
    else return true;
    return false;
  });
  const remembered = memoryNote(memory.lowered.size, loweredBelow);
  if (remembered) notes.push(remembered);

  // 6. verification
  if (settings.verify && input.verify && kept.length > 0) {
    const { results: verdicts, notes: verifyNotes = [] } = await input.verify(kept);
    notes.push(...verifyNotes);
    let notRun = 0;
    kept = kept.flatMap((f): Finding[] => {
      const v = verdicts.get(f.fingerprint) ?? { verdict: "not_run" as const };
      const noted = v.note ? { verificationNote: v.note } : {};
      if (v.verdict === "confirmed") return [{ ...f, ...noted, verification: "confirmed" }];
      if (v.verdict === "not_run") {
        notRun++;
        return [{ ...f, ...noted, verification: "not_run" }];
      }
      if (settings.unverified === "drop") {
        stages.droppedUnverified++;
        return [];
      }
      return [{ ...f, ...noted, verification: "unverified" }];
    });
    if (notRun > 0) notes.push(`verification did not run for ${notRun} finding(s); they are kept and marked "not_run"`);
  }

  kept.sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) ||
      b.confidence - a.confidence ||
      a.file.localeCompare(b.file) ||
      a.startLine - b.startLine,
  );
  stages.kept = kept.length;
  const engine = input.engine ?? "agent";
  const { computed, ...scores } = completeScores(input.model, kept);
  const filledIn = engine === "agent" && computed.length > 0;
  if (filledIn) notes.push(computedScoresNote(computed));
  return {
    engine,
    engineLabel: input.engineLabel,
    summary: input.model.summary,
    ...scores,
    findings: kept,
    files: rollupByFile(kept),
    stages,
    notes,
    ...(filledIn ? { computedScores: computed } : {}),
  };
}
