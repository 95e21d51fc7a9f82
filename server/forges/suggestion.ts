/**
 * A finding's concrete fix as a forge suggestion: when its unified diff applies to the head file and
 * changes nothing outside the finding's lines, the new text of those lines (what a GitHub
 * ```suggestion block / GitLab suggestion replaces them with). Anything else — no diff, a diff that
 * does not apply, or one that reaches beyond the lines — is no suggestion (the prose fix still shows).
 */
import { applyPatch } from "diff";

export function suggestionFor(
  source: string,
  finding: { startLine: number; endLine: number; diff: string | null },
): string | null {
  if (!finding.diff) return null;
  let patched: string | false;
  try {
    patched = applyPatch(source, finding.diff);
  } catch {
    return null;
  }
  if (patched === false || patched === source) return null;
  const before = source.split("\n");
  const after = patched.split("\n");
  const head = finding.startLine - 1;
  const tail = before.length - finding.endLine;
  if (head < 0 || tail < 0 || after.length < head + tail) return null;
  for (let i = 0; i < head; i++) if (before[i] !== after[i]) return null;
  for (let i = 1; i <= tail; i++) if (before[before.length - i] !== after[after.length - i]) return null;
  return after.slice(head, after.length - tail).join("\n");
}

/** A suggestion block that survives backticks in the code (a longer fence than any run inside). */
export function suggestionBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}suggestion\n${text}\n${fence}`;
}
