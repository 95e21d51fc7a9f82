/**
 * SARIF 2.1.0 export (what GitHub code scanning, Azure DevOps and IDE viewers read).
 *
 *   - one run; tool.driver "Argus" with one rule per distinct rule: a static finding's own ruleId
 *     (e.g. "secrets/aws-access-key"), otherwise the finding's category ("argus/security")
 *   - level from severity: critical/high → error, medium → warning, low/info → note
 *   - location: the snapshot-relative path as a relative URI under %SRCROOT%, region start/end line
 *     and the quoted evidence as snippet
 *   - partialFingerprints carry Argus's finding fingerprint, so tools track a finding across reviews
 *   - a finding the project marked false positive is kept with an accepted external suppression
 *   - confidence, verification, category and Argus's severity in each result's properties
 *   - a taint finding's trace as one codeFlow with one threadFlow: source → steps → sink, each a
 *     location (path and line) with the step's label as its message, in execution order
 *   - a static rule's CWE ids (server/shared/cwe.ts): the result's `taxa` into the run's CWE
 *     taxonomy, `properties.cwe` ("CWE-89"), and GitHub's `external/cwe/cwe-89` tags on the rule
 *
 * Validated against the official SARIF 2.1.0 JSON schema in sarif.test.ts.
 */
import type { CodeFlow, Log, ReportingDescriptor, Result, Run } from "sarif";
import { cweOf } from "../../shared/cwe.ts";
import type { TraceStep } from "../../shared/findings.ts";
import { severityRank, type Finding, type Severity } from "../report/schema.ts";
import type { ExportInput } from "./types.ts";

export const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";
export const FINGERPRINT_KEY = "argusFingerprint/v1";
const SRCROOT = "SRCROOT";

export function sarifLevel(severity: Severity): Result.level {
  return severity === "critical" || severity === "high" ? "error" : severity === "medium" ? "warning" : "note";
}

/** GitHub's security-severity scale (0–10) for security rules. */
const SECURITY_SEVERITY: Record<Severity, string> = {
  critical: "9.5",
  high: "8.0",
  medium: "5.5",
  low: "3.0",
  info: "1.0",
};

export function ruleIdOf(f: Pick<Finding, "ruleId" | "category" | "source">): string {
  return f.source === "static" && f.ruleId ? f.ruleId : `argus/${f.category}`;
}

const cwesOf = (f: Pick<Finding, "ruleId" | "source">) => (f.source === "static" ? cweOf(f.ruleId) : []);
const CWE_TAXONOMY = "CWE";

/** A relative path as a relative URI reference: each segment percent-encoded, "/" kept. */
export function relativeUri(file: string): string {
  return file
    .replace(/\\/g, "/")
    .replace(/^\.?\/+/, "")
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
}

const ruleName = (id: string) =>
  id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

function buildRules(findings: readonly Finding[]): { rules: ReportingDescriptor[]; index: Map<string, number> } {
  const byId = new Map<string, Finding[]>();
  for (const f of findings) {
    const id = ruleIdOf(f);
    byId.set(id, [...(byId.get(id) ?? []), f]);
  }
  const rules: ReportingDescriptor[] = [];
  const index = new Map<string, number>();
  for (const [id, group] of [...byId].sort((a, b) => a[0].localeCompare(b[0]))) {
    const worst = group.reduce((w, f) => (severityRank(f.severity) < severityRank(w.severity) ? f : w));
    const isCategoryRule = id === `argus/${worst.category}`;
    index.set(id, rules.length);
    rules.push({
      id,
      name: ruleName(id),
      shortDescription: {
        text: isCategoryRule
          ? `${worst.category[0]!.toUpperCase()}${worst.category.slice(1)} issue found by the Argus review agent`
          : worst.title,
      },
      ...(isCategoryRule ? {} : { fullDescription: { text: worst.explanation } }),
      defaultConfiguration: { level: sarifLevel(worst.severity) },
      properties: {
        tags: [
          worst.category,
          ...(worst.source === "static" ? ["static-analysis"] : ["ai-review"]),
          ...cwesOf(worst).map((c) => `external/cwe/${c.toLowerCase()}`),
        ],
        ...(worst.category === "security" ? { "security-severity": SECURITY_SEVERITY[worst.severity] } : {}),
      },
    });
  }
  return { rules, index };
}

function message(f: Finding): Result["message"] {
  const text = [f.title, f.explanation, f.suggestedFix ? `Suggested fix: ${f.suggestedFix}` : ""]
    .filter(Boolean)
    .join("\n\n");
  return { text };
}

/** A data flow as SARIF's codeFlows (§3.36): one thread, its locations in the order the data moves. */
export function codeFlowOf(trace: readonly TraceStep[]): CodeFlow {
  const last = trace.length - 1;
  return {
    message: { text: `Untrusted data from ${trace[0]!.label} reaches ${trace[last]!.label}` },
    threadFlows: [
      {
        locations: trace.map((step, i) => ({
          location: {
            physicalLocation: {
              artifactLocation: { uri: relativeUri(step.file), uriBaseId: SRCROOT },
              region: { startLine: step.line },
            },
            message: { text: i === 0 ? `source: ${step.label}` : i === last ? `sink: ${step.label}` : step.label },
          },
          kinds: ["taint"],
          importance: i === 0 || i === last ? ("essential" as const) : ("important" as const),
          nestingLevel: 0,
          executionOrder: i + 1,
        })),
      },
    ],
  };
}

function toResult(f: Finding, ruleIndex: number, dismissed: boolean): Result {
  return {
    ruleId: ruleIdOf(f),
    ruleIndex,
    level: sarifLevel(f.severity),
    message: message(f),
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: relativeUri(f.file), uriBaseId: SRCROOT },
          region: {
            startLine: f.startLine,
            endLine: Math.max(f.startLine, f.endLine),
            ...(f.evidence ? { snippet: { text: f.evidence } } : {}),
          },
        },
      },
    ],
    ...(f.trace?.length ? { codeFlows: [codeFlowOf(f.trace)] } : {}),
    ...(cwesOf(f).length
      ? { taxa: cwesOf(f).map((c) => ({ id: c.slice(4), toolComponent: { name: CWE_TAXONOMY } })) }
      : {}),
    partialFingerprints: { [FINGERPRINT_KEY]: f.fingerprint },
    ...(dismissed
      ? {
          suppressions: [
            {
              kind: "external" as const,
              status: "accepted" as const,
              justification: "Marked as a false positive in Argus.",
            },
          ],
        }
      : {}),
    properties: {
      severity: f.severity,
      confidence: f.confidence,
      ...(cwesOf(f).length ? { cwe: cwesOf(f) } : {}),
      category: f.category,
      verification: f.verification,
      ...(f.verificationNote ? { verificationNote: f.verificationNote } : {}),
      source: f.source,
      ...(f.suggestedFix ? { suggestedFix: f.suggestedFix } : {}),
      ...(f.diff ? { diff: f.diff } : {}),
    },
  };
}

const isoOrUndefined = (d: Date | string | null) => (d ? new Date(d).toISOString() : undefined);

export function toSarif({ review, report, dismissed }: ExportInput): Log {
  const { rules, index } = buildRules(report.findings);
  const cwes = [...new Set(report.findings.flatMap((f) => cwesOf(f)))].sort();
  const run: Run = {
    tool: { driver: { name: "Argus", fullName: "Argus code review", rules } },
    ...(cwes.length
      ? {
          taxonomies: [
            {
              name: CWE_TAXONOMY,
              organization: "MITRE",
              informationUri: "https://cwe.mitre.org/",
              shortDescription: { text: "The MITRE Common Weakness Enumeration" },
              taxa: cwes.map((c) => ({
                id: c.slice(4),
                helpUri: `https://cwe.mitre.org/data/definitions/${c.slice(4)}.html`,
              })),
            },
          ],
        }
      : {}),
    automationDetails: { id: `argus/${review.projectUid}/${review.uid}` },
    originalUriBaseIds: {
      [SRCROOT]: {
        description: {
          text: `The root of the reviewed code of ${review.projectName} (snapshot ${review.snapshotUid ?? "unknown"}).`,
        },
      },
    },
    invocations: [
      {
        executionSuccessful: review.status === "completed",
        startTimeUtc: isoOrUndefined(review.startedAt ?? review.createdAt),
        endTimeUtc: isoOrUndefined(review.finishedAt),
        ...(review.statusReason ? { exitCodeDescription: review.statusReason } : {}),
      },
    ],
    results: report.findings.map((f) => toResult(f, index.get(ruleIdOf(f))!, dismissed.has(f.fingerprint))),
    properties: {
      reviewUid: review.uid,
      project: review.projectName,
      projectUid: review.projectUid,
      snapshotUid: review.snapshotUid,
      engine: review.engine,
      engineLabel: report.engineLabel,
      overallScore: report.overallScore,
      categoryScores: report.categoryScores,
      ...(report.computedScores ? { computedScores: report.computedScores } : {}),
      stages: report.stages,
      ...(report.notes.length ? { notes: report.notes } : {}),
    },
  };
  return { $schema: SARIF_SCHEMA_URI, version: "2.1.0", runs: [run] };
}
