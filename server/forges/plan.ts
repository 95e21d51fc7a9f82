/**
 * What one review of a pull request posts, decided from the review's findings and the PR's diff
 * (pure: the job reads, this decides, the adapter writes):
 *  - inline comments only on the diff's added lines, most severe first, up to the inline cap, never
 *    one whose finding was already posted on this PR (fingerprints), nor one less confident than the
 *    repository's min_confidence (counted in the summary, not listed: the threshold says they are noise);
 *  - everything else in the summary (outside the diff, over the cap, refused by the forge);
 *  - findings posted before that this review no longer raises: fixed, their threads resolved;
 *  - the check: neutral unless a finding reaches the failing severity the repository configured.
 */
import { atLeast, severityRank, type Severity } from "../shared/findings.ts";
import { anchorFor, type FileLines } from "./diff-lines.ts";
import { suggestionBlock, suggestionFor } from "./suggestion.ts";
import { SUMMARY_MARKER } from "./markers.ts";
import type { CheckAnnotation, CheckResult, InlineComment } from "./types.ts";

export interface PlanFinding {
  fingerprint: string;
  title: string;
  severity: Severity;
  confidence: number;
  file: string;
  startLine: number;
  endLine: number;
  explanation: string;
  suggestedFix: string | null;
  diff: string | null;
}

export interface PlanInput {
  findings: PlanFinding[];
  lines: Map<string, FileLines>;
  /** Findings already posted inline on this PR (earlier reviews): fingerprint → file, open threads only. */
  posted: Map<string, string>;
  /** Fingerprints posted on this PR whose threads are already resolved (never posted again). */
  postedResolved?: Set<string>;
  /** The files this review looked at: an open finding there that it no longer raises was fixed. */
  reviewedFiles: Set<string>;
  /** The head file's text, for suggestions (null when it cannot be read). */
  readFile: (path: string) => string | null;
  headSha: string;
  inlineCap: number;
  /** Findings below this confidence (0–1) are only counted in the summary (.argus.yaml min_confidence). */
  minConfidence?: number;
  /** The severity that fails the check; null: the check is neutral whatever is found. */
  failOn: Severity | null;
  /** The PR's room in Argus. */
  roomUrl: string;
  /** What changed since the last reviewed commit, when this is a push's review. */
  incrementalFrom?: string;
  /** Lines for the summary about what was not reviewed (skipped files, a stale comment …). */
  notes?: string[];
}

export interface ReviewPlan {
  comments: InlineComment[];
  /** Findings under min_confidence: in the summary's count only. */
  belowConfidence: PlanFinding[];
  /** Findings reported in the summary only (outside the diff, over the cap, refused inline). */
  inSummary: PlanFinding[];
  /** Earlier findings this review no longer raises. */
  fixed: string[];
  summary: string;
  check: CheckResult;
}

const ICON: Record<Severity, string> = { critical: "🔴", high: "🟠", medium: "🟡", low: "🔵", info: "⚪" };
const LEVEL: Record<Severity, CheckAnnotation["level"]> = {
  critical: "failure",
  high: "failure",
  medium: "warning",
  low: "notice",
  info: "notice",
};

const bySeverity = (a: PlanFinding, b: PlanFinding) =>
  severityRank(a.severity) - severityRank(b.severity) ||
  b.confidence - a.confidence ||
  a.file.localeCompare(b.file) ||
  a.startLine - b.startLine;

function commentBody(f: PlanFinding, suggestion: string | null): string {
  const parts = [`${ICON[f.severity]} **${f.severity}: ${f.title}**`, "", f.explanation.trim()];
  if (suggestion !== null) parts.push("", suggestionBlock(suggestion));
  else if (f.suggestedFix) parts.push("", `**Fix:** ${f.suggestedFix.trim()}`);
  return parts.join("\n");
}

function where(f: PlanFinding): string {
  return f.startLine === f.endLine ? `${f.file}:${f.startLine}` : `${f.file}:${f.startLine}-${f.endLine}`;
}

function summaryBody(
  input: PlanInput,
  inline: number,
  inSummary: PlanFinding[],
  fixed: number,
  all: PlanFinding[],
  belowConfidence: number,
) {
  const counts = new Map<Severity, number>();
  for (const f of all) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  const tally = [...counts.entries()]
    .sort(([a], [b]) => severityRank(a) - severityRank(b))
    .map(([s, n]) => `${ICON[s]} ${n} ${s}`)
    .join(" · ");
  const lines = [
    "## Argus review",
    "",
    input.incrementalFrom
      ? `Reviewed the changes since \`${input.incrementalFrom.slice(0, 7)}\` up to \`${input.headSha.slice(0, 7)}\`.`
      : `Reviewed \`${input.headSha.slice(0, 7)}\`.`,
    "",
    all.length === 0 ? "No findings." : `**${all.length} finding${all.length === 1 ? "" : "s"}**: ${tally}`,
  ];
  if (inline) lines.push(`${inline} new inline comment${inline === 1 ? "" : "s"} on the changed lines.`);
  if (belowConfidence)
    lines.push(
      `${belowConfidence} finding${belowConfidence === 1 ? "" : "s"} under the confidence floor (${input.minConfidence}, .argus.yaml min_confidence) ${belowConfidence === 1 ? "is" : "are"} counted here, not posted.`,
    );
  if (fixed) lines.push(`${fixed} earlier finding${fixed === 1 ? "" : "s"} fixed by this push (thread resolved).`);
  if (inSummary.length) {
    lines.push("", "### Not on the changed lines", "");
    for (const f of inSummary) lines.push(`- ${ICON[f.severity]} **${f.severity}** \`${where(f)}\` — ${f.title}`);
  }
  if (input.notes?.length) lines.push("", ...input.notes.map((n) => `> ${n}`));
  lines.push("", `[Open the review room](${input.roomUrl}) — watch the review, replay it, discuss each finding.`);
  lines.push("", SUMMARY_MARKER);
  return lines.join("\n");
}

export function planReview(input: PlanInput, refusedInline = new Set<string>()): ReviewPlan {
  const findings = [...input.findings].sort(bySeverity);
  const current = new Set(findings.map((f) => f.fingerprint));
  const comments: InlineComment[] = [];
  const inSummary: PlanFinding[] = [];
  const belowConfidence: PlanFinding[] = [];
  for (const f of findings) {
    if (input.posted.has(f.fingerprint) || input.postedResolved?.has(f.fingerprint)) continue; // already on the PR
    if (f.confidence < (input.minConfidence ?? 0)) {
      belowConfidence.push(f);
      continue;
    }
    const anchor = refusedInline.has(f.fingerprint) ? null : anchorFor(input.lines.get(f.file), f.startLine, f.endLine);
    if (!anchor || comments.length >= input.inlineCap) {
      inSummary.push(f);
      continue;
    }
    const source = anchor.wholeRange ? input.readFile(f.file) : null;
    const suggestion = source === null ? null : suggestionFor(source, f);
    comments.push({
      fingerprint: f.fingerprint,
      path: f.file,
      line: anchor.line,
      ...(anchor.startLine < anchor.line ? { startLine: anchor.startLine } : {}),
      body: commentBody(f, suggestion),
    });
  }
  const fixed = [...input.posted]
    .filter(([fp, file]) => input.reviewedFiles.has(file) && !current.has(fp))
    .map(([fp]) => fp);
  const failing = input.failOn ? findings.filter((f) => atLeast(f.severity, input.failOn!)) : [];
  const check: CheckResult = {
    headSha: input.headSha,
    conclusion: failing.length ? "failure" : input.failOn ? "success" : "neutral",
    title: failing.length
      ? `${failing.length} finding${failing.length === 1 ? "" : "s"} at ${input.failOn} or worse`
      : `${findings.length} finding${findings.length === 1 ? "" : "s"}`,
    summary: summaryBody(input, comments.length, inSummary, fixed.length, findings, belowConfidence.length),
    annotations: findings.map((f) => ({
      path: f.file,
      startLine: f.startLine,
      endLine: f.endLine,
      level: LEVEL[f.severity],
      title: f.title,
      message: f.explanation,
    })),
    detailsUrl: input.roomUrl,
  };
  return { comments, inSummary, belowConfidence, fixed, summary: check.summary, check };
}
