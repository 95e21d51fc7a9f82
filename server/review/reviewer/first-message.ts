/**
 * The first user message of a review (Argus seed): what to review (scope), how big it is (file
 * count), what it is written in (language mix), what the static pre-pass already found, and for a
 * diff review which files and hunks changed. Everything else the model finds out with its tools.
 * Paths and counts come from the snapshot, i.e. from uploaded code: they are listed, never obeyed,
 * and capped so a huge tree cannot crowd out the instructions.
 */
import type { ReviewScope, Severity } from "../report/schema.ts";
import { SEVERITIES } from "../report/schema.ts";

export interface StaticSummary {
  /** Findings per tool, e.g. { argus: 12, eslint: 40 }. */
  byTool: Record<string, number>;
  bySeverity?: Partial<Record<Severity, number>>;
  /** The most important findings, shown as one line each. */
  top?: { file: string; line: number; severity: string; ruleId: string; message: string }[];
}

export interface DiffFile {
  path: string;
  status?: "added" | "modified" | "deleted" | "renamed";
  /** Changed line ranges in the new version. */
  hunks?: { start: number; end: number }[];
}

export interface FirstMessageInput {
  scope: ReviewScope;
  /** The number of files in scope, or their paths (listed when there are few). */
  files: number | readonly string[];
  /** Files per language, e.g. { TypeScript: 120, JSON: 8 }. */
  languages: Record<string, number>;
  /** A ready sentence, or counts the builder phrases. Absent: no pre-pass ran. */
  staticSummary?: string | StaticSummary;
  /** For a diff scope: what changed. */
  diffFiles?: readonly DiffFile[];
}

const MAX_LISTED_PATHS = 150;
const MAX_DIFF_FILES = 300;
const MAX_TOP_FINDINGS = 15;

export function buildFirstMessage(input: FirstMessageInput): string {
  const count = typeof input.files === "number" ? input.files : input.files.length;
  const out: string[] = [];

  out.push(`Review scope: ${describeScope(input.scope)}.`);
  out.push(`Files in scope: ${count}.`);
  const langs = Object.entries(input.languages).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (langs.length)
    out.push(
      `Languages: ${langs
        .slice(0, 12)
        .map(([l, n]) => `${oneLine(l)} ${n}`)
        .join(", ")}${langs.length > 12 ? `, and ${langs.length - 12} more` : ""}.`,
    );
  out.push(`Static analysis pre-pass: ${describeStatic(input.staticSummary)}`);

  if (typeof input.files !== "number" && input.files.length > 0 && input.files.length <= MAX_LISTED_PATHS) {
    out.push("", "Files:", ...input.files.map((p) => `- ${oneLine(p)}`));
  }

  if (input.scope.kind === "diff") {
    const files = input.diffFiles ?? [];
    out.push("", `Changed files (${files.length}):`);
    for (const f of files.slice(0, MAX_DIFF_FILES)) {
      const hunks = f.hunks?.length
        ? `: lines ${f.hunks.map((h) => (h.start === h.end ? `${h.start}` : `${h.start}–${h.end}`)).join(", ")}`
        : "";
      out.push(`- ${oneLine(f.path)}${f.status ? ` (${f.status})` : ""}${hunks}`);
    }
    if (files.length > MAX_DIFF_FILES) out.push(`- … and ${files.length - MAX_DIFF_FILES} more (use get_diff)`);
    out.push(
      "",
      "Report only problems in the changed lines (or problems the change introduces elsewhere). Read any other file you need for context; get_diff shows the hunks.",
    );
  }

  out.push("", "Start with the tools (list_dir, read_file, grep …); do not guess at code you have not read.");
  return out.join("\n");
}

function describeScope(scope: ReviewScope): string {
  switch (scope.kind) {
    case "project":
      return "the whole project";
    case "paths":
      return `these paths / globs: ${scope.paths.slice(0, 50).map(oneLine).join(", ")}${scope.paths.length > 50 ? ` (and ${scope.paths.length - 50} more)` : ""}`;
    case "diff":
      return `the changes from ${oneLine(scope.base)} to ${oneLine(scope.head)}`;
  }
}

function describeStatic(s: FirstMessageInput["staticSummary"]): string {
  if (s === undefined) return "not run.";
  if (typeof s === "string") return oneLine(s);
  const tools = Object.entries(s.byTool).filter(([, n]) => n > 0);
  const total = tools.reduce((a, [, n]) => a + n, 0);
  if (total === 0) return "no findings.";
  const sev = SEVERITIES.filter((k) => (s.bySeverity?.[k] ?? 0) > 0).map((k) => `${s.bySeverity![k]} ${k}`);
  const lines = [
    `${total} findings (${tools.map(([t, n]) => `${oneLine(t)} ${n}`).join(", ")})${sev.length ? `; by severity: ${sev.join(", ")}` : ""}. Confirm or dismiss them by reading the code (get_static_analysis lists them all).`,
  ];
  for (const f of (s.top ?? []).slice(0, MAX_TOP_FINDINGS))
    lines.push(
      `- ${oneLine(f.file)}:${f.line} ${f.severity} ${oneLine(f.ruleId)}: ${oneLine(f.message).slice(0, 200)}`,
    );
  return lines.join("\n");
}

/** Untrusted text (paths, messages from uploaded code) on one line, so it cannot fake a new section. */
function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, " ").slice(0, 500);
}
