/**
 * A finding drafted from an answer (or the part of it a reader selected), for the "Answer → finding"
 * form: file and lines from its first citation that exists in the snapshot; severity and category
 * from a finding already on those lines (the review's, else the static pre-pass's), else from the
 * words of the text; the title from its first sentence. Everything stays editable before saving.
 */
import type { Category, Severity } from "../shared/findings.ts";
import type { Citation } from "../shared/ask.ts";
import { findCodeRefs } from "../shared/code-refs.ts";
import { staticCategory } from "../agent/index.ts";

export interface DraftFinding {
  title: string;
  file: string;
  startLine: number;
  endLine: number;
  severity: Severity;
  category: Category;
  explanation: string;
}

export interface LineFinding {
  file: string;
  startLine: number;
  endLine: number;
  severity: string;
  /** A review's finding's category; a static finding's as its review finding would have it (server/agent/static-findings.ts). */
  category: string;
}

/** A static pre-pass finding on the lines, with the category its review finding has (server/agent/static-findings.ts), not a guess. */
export function staticLineFinding(f: {
  file: string;
  startLine: number;
  endLine: number;
  severity: string;
  tool: string;
  ruleId: string;
}): LineFinding {
  return {
    file: f.file,
    startLine: f.startLine,
    endLine: f.endLine,
    severity: f.severity,
    category: staticCategory(f),
  };
}

const SECURITY =
  /\b(passwords?|hash(e[sd]|ing)?|md5|sha1|secrets?|tokens?|credentials?|inject(ion)?|sql|xss|csrf|auth\w*|crypt\w*|sanitiz\w*|escap\w*|vulnerab\w*|api.?keys?)\b/i;
const PERFORMANCE = /\b(slow|performance|latency|n\+1|quadratic|memory leak|cache|caching)\b/i;

export function categoryFromText(text: string): Category {
  if (SECURITY.test(text)) return "security";
  if (PERFORMANCE.test(text)) return "performance";
  return "correctness";
}

export function titleFrom(text: string): string {
  const plain = text
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/[*_`#>]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  const sentence = /^(.{8,}?[.!?])(\s|$)/.exec(plain)?.[1] ?? plain;
  const cut = sentence.length > 120 ? `${sentence.slice(0, 117)}…` : sentence;
  return cut || "Finding from a conversation with Argus";
}

const overlaps = (a: { startLine: number; endLine: number }, b: { startLine: number; endLine: number }) =>
  a.startLine <= b.endLine && b.startLine <= a.endLine;

export function draftFinding(opts: {
  text: string;
  citations: Citation[];
  /** Findings already on the snapshot's lines: the review's first, then the static pre-pass's. */
  known: LineFinding[];
}): DraftFinding | null {
  const ok = opts.citations.filter((c) => c.status === "ok");
  // A selection's own references first (when they are among the answer's checked ones).
  const selected = findCodeRefs(opts.text)
    .map((r) => ok.find((c) => c.path === r.path && c.line === r.line && c.endLine === (r.endLine ?? r.line)))
    .find(Boolean);
  const at = selected ?? ok[0];
  if (!at) return null;
  const range = { startLine: at.line, endLine: at.endLine };
  const onLines = opts.known.find((f) => f.file === at.path && overlaps(f, range));
  const category = (onLines?.category as Category | undefined) ?? categoryFromText(opts.text);
  const severity = (onLines?.severity as Severity | undefined) ?? (category === "security" ? "high" : "medium");
  return {
    title: titleFrom(opts.text),
    file: at.path,
    startLine: at.line,
    endLine: at.endLine,
    severity,
    category,
    explanation: opts.text.trim().slice(0, 4000),
  };
}
