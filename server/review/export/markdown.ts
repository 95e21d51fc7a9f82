/**
 * The Markdown export: a report a person reads in a PR comment, a wiki or an editor. Everything the
 * model or the uploaded code wrote is untrusted: quoted code goes in fences that cannot be closed from
 * inside, prose has raw HTML neutralised (see text.ts).
 */
import { SEVERITIES, severityRank, type Finding, type Severity } from "../report/schema.ts";
import { describeStages } from "../../shared/stages.ts";
import { block, cell, codeSpan, fence, fenceLanguage, inline } from "./text.ts";
import type { ExportInput, ExportReview } from "./types.ts";

const SEVERITY_LABEL: Record<Severity, string> = {
  critical: "CRITICAL",
  high: "HIGH",
  medium: "MEDIUM",
  low: "LOW",
  info: "INFO",
};

function engineLine(review: ExportReview, engineLabel: string): string {
  if (engineLabel) return engineLabel;
  return review.provider ? `${review.provider} / ${review.model ?? "default model"}` : review.engine;
}

function scopeLine(review: ExportReview): string {
  const s = review.scope;
  if (s.kind === "project") return "whole project";
  if (s.kind === "paths") return `paths: ${s.paths.map((p) => `\`${p.replace(/`/g, "'")}\``).join(", ")}`;
  return `diff ${inline(s.base)}..${inline(s.head)}`;
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString().replace(".000Z", "Z") : "—");

function location(f: Finding): string {
  return f.endLine > f.startLine ? `${f.file}:${f.startLine}-${f.endLine}` : `${f.file}:${f.startLine}`;
}

/** A taint finding's trace as a numbered path: "1. `src/app.ts:4` — req.query.id". */
export function dataFlow(f: Pick<Finding, "trace">): string | null {
  if (!f.trace?.length) return null;
  const last = f.trace.length - 1;
  const steps = f.trace.map((s, i) => {
    const role = i === 0 ? " (source)" : i === last ? " (sink)" : "";
    return `${i + 1}. ${codeSpan(`${s.file}:${s.line}`)} — ${codeSpan(s.label)}${role}`;
  });
  return ["**Data flow:**", "", ...steps].join("\n");
}

function renderFinding(f: Finding, n: number, dismissed: boolean): string {
  const meta = [
    `\`${location(f).replace(/`/g, "'")}\``,
    f.category,
    `confidence ${f.confidence.toFixed(2)}`,
    f.verification === "confirmed" ? "verified" : f.verification === "unverified" ? "unverified" : null,
    f.ruleId ? `rule \`${f.ruleId.replace(/`/g, "'")}\`` : null,
    dismissed ? "**marked false positive**" : null,
  ].filter(Boolean);
  const parts = [
    `### ${n}. [${SEVERITY_LABEL[f.severity]}] ${inline(f.title)}`,
    "",
    meta.join(" · "),
    "",
    block(f.explanation),
  ];
  if (f.evidence.trim()) parts.push("", fence(f.evidence, fenceLanguage(f.file)));
  const flow = dataFlow(f);
  if (flow) parts.push("", flow);
  if (f.verificationNote) parts.push("", `**Verification:** ${inline(f.verificationNote)}`);
  if (f.suggestedFix) parts.push("", "**Suggested fix:**", "", block(f.suggestedFix));
  if (f.diff) parts.push("", fence(f.diff, "diff"));
  return parts.join("\n");
}

export function toMarkdown({ review, report, dismissed }: ExportInput): string {
  const out: string[] = [];
  // Worst first, then by place in the code, whatever order the report was stored in.
  const sorted = [...report.findings].sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) || a.file.localeCompare(b.file) || a.startLine - b.startLine,
  );
  const active = sorted.filter((f) => !dismissed.has(f.fingerprint));
  const falsePositives = sorted.filter((f) => dismissed.has(f.fingerprint));
  const counts = Object.fromEntries(
    SEVERITIES.map((s) => [s, active.filter((f) => f.severity === s).length]),
  ) as Record<Severity, number>;

  out.push(`# Argus review — ${inline(review.projectName)}`, "");
  out.push("| | |", "|---|---|");
  out.push(`| Engine | ${cell(engineLine(review, report.engineLabel))} |`);
  if (review.promptName) out.push(`| Prompt | ${cell(review.promptName)} |`);
  out.push(`| Scope | ${cell(scopeLine(review))} |`);
  out.push(`| Status | ${review.status}${review.statusReason ? ` — ${cell(review.statusReason)}` : ""} |`);
  out.push(`| Started | ${iso(review.startedAt ?? review.createdAt)} |`, `| Finished | ${iso(review.finishedAt)} |`);
  if (review.usage) {
    const u = review.usage;
    const cost = u.costUsd !== undefined ? ` · $${u.costUsd.toFixed(4)}` : "";
    out.push(
      `| Usage | ${u.inputTokens.toLocaleString("en-US")} input / ${u.outputTokens.toLocaleString("en-US")} output tokens${cost} |`,
    );
  }
  const computed = new Set(report.computedScores ?? []);
  const byArgus = (key: string) => (computed.has(key as never) ? " (computed by Argus)" : "");
  out.push(
    `| Overall score | **${Math.round(report.overallScore)}** / 100${byArgus("overall")} |`,
    `| Review id | \`${review.uid}\` |`,
    "",
  );

  out.push("## Summary", "", block(report.summary), "");

  const categories = Object.entries(report.categoryScores);
  if (categories.length) {
    out.push("## Scores", "", "| Category | Score |", "|---|---:|");
    for (const [c, s] of categories) out.push(`| ${c} | ${Math.round(s ?? 0)}${byArgus(c)} |`);
    out.push("");
  }

  out.push(`## Findings (${active.length})`, "");
  out.push(SEVERITIES.map((s) => `${counts[s]} ${s}`).join(" · "), "");
  out.push(`Noise control: ${describeStages(report.stages)}.`, "");
  if (active.length === 0) out.push("_No findings._", "");
  active.forEach((f, i) => out.push(renderFinding(f, i + 1, false), ""));

  if (falsePositives.length) {
    out.push(`## Marked false positive (${falsePositives.length})`, "");
    for (const f of falsePositives)
      out.push(`- [${SEVERITY_LABEL[f.severity]}] ${inline(f.title)} — \`${location(f).replace(/`/g, "'")}\``);
    out.push("");
  }

  if (report.files.length) {
    out.push(
      "## Files at risk",
      "",
      `| File | Score | ${SEVERITIES.join(" | ")} |`,
      `|---|---:|${SEVERITIES.map(() => "---:").join("|")}|`,
    );
    for (const f of report.files)
      out.push(
        `| \`${f.path.replace(/[`|]/g, "_")}\` | ${Math.round(f.score)} | ${SEVERITIES.map((s) => f.counts[s] ?? 0).join(" | ")} |`,
      );
    out.push("");
  }

  if (report.notes.length) {
    out.push("## Notes", "");
    for (const n of report.notes) out.push(`- ${inline(n)}`);
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
