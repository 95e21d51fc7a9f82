/**
 * A finding's stable identity, so a repeated review of the same code does not raise it twice and a
 * finding marked "false positive" stays dismissed for the project (finding_dismissal.fingerprint).
 *
 *   sha256("v1" \n path \n category \n anchor), first 32 hex characters
 *
 * - path: forward slashes, no leading "./" or "/".
 * - anchor: the evidence (after the location check these are the file's own lines), each line trimmed,
 *   runs of whitespace collapsed, blank lines dropped — so re-indenting or moving the code (lines
 *   inserted above it) keeps the fingerprint, while changing the offending code itself gives a new one.
 *   A finding without evidence falls back to its title, lower-cased, punctuation removed.
 * - Line numbers, severity, confidence, title wording (when there is evidence) and the explanation are
 *   left out on purpose: they vary between runs of a model for the same problem.
 *
 * Two findings of the same category on the same lines therefore share a fingerprint and are merged;
 * that is the intended meaning of "the same finding".
 */
import { createHash } from "node:crypto";

export interface FingerprintInput {
  file: string;
  category: string;
  evidence: string;
  title: string;
}

export function fingerprint(f: FingerprintInput): string {
  const anchor = normaliseEvidence(f.evidence);
  const key = [
    "v1",
    normalisePath(f.file),
    f.category,
    anchor ? `evidence:${anchor}` : `title:${normaliseTitle(f.title)}`,
  ].join("\n");
  return createHash("sha256").update(key).digest("hex").slice(0, 32);
}

export function normalisePath(p: string): string {
  return p
    .trim()
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/")
    .replace(/^(?:\.\/)+/, "")
    .replace(/^\/+/, "");
}

export function normaliseEvidence(evidence: string): string {
  return evidence
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/\s+/g, " "))
    .filter(Boolean)
    .join("\n");
}

function normaliseTitle(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
