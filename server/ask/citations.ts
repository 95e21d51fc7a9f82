/**
 * The `path:line-line` references of an answer, checked against the snapshot it answers over — the
 * same way a finding's location is checked (server/agent/locate.ts with no quoted evidence: the
 * lines must exist), through the Sandbox (no path escapes, ignore rules). A citation whose file is
 * not in the snapshot, or whose lines run past the file's end, is kept and marked, so readers see
 * that the model cited something that is not there.
 */
import { locateEvidence, type Sandbox } from "../agent/index.ts";
import type { Citation } from "../shared/ask.ts";
import { findCodeRefs } from "../shared/code-refs.ts";

/** At most this many distinct citations are checked and kept per answer. */
export const MAX_CITATIONS = 50;

export function checkCitations(text: string, sandbox: Sandbox): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  const contents = new Map<string, string | null>();
  const read = (path: string) => {
    if (!contents.has(path)) {
      try {
        contents.set(path, sandbox.readFile(path).content);
      } catch {
        contents.set(path, null);
      }
    }
    return contents.get(path)!;
  };
  for (const ref of findCodeRefs(text)) {
    const endLine = ref.endLine ?? ref.line;
    const key = `${ref.path}:${ref.line}-${endLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (out.length >= MAX_CITATIONS) break;
    const content = read(ref.path);
    if (content === null) {
      out.push({ path: ref.path, line: ref.line, endLine, status: "missing_file" });
      continue;
    }
    const located = locateEvidence(content, { startLine: ref.line, endLine, evidence: "" });
    const fileLines = lineCount(content);
    out.push({
      path: ref.path,
      line: ref.line,
      endLine,
      status: located.status === "ok" ? "ok" : "missing_lines",
      fileLines,
    });
  }
  return out;
}

function lineCount(content: string): number {
  const lines = content.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines.length;
}
