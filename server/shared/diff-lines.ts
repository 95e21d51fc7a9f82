/**
 * The one line model every diff in the app is drawn from: a finding's unified diff (parsed here) and
 * the line diffs the server computes (pipeline versions, the builder assistant's proposals).
 */
export interface DiffLine {
  kind: "same" | "add" | "del" | "hunk" | "meta";
  text: string;
  /** Line in the old text (same, del), when known. */
  old?: number;
  /** Line in the new text (same, add), when known. */
  new?: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** A unified diff's text as lines, numbered from its hunk headers (a diff without headers is unnumbered). */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  let o: number | null = null;
  let n: number | null = null;
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      o = Number(hunk[1]);
      n = Number(hunk[2]);
      out.push({ kind: "hunk", text: line });
    } else if (
      line.startsWith("+++") ||
      line.startsWith("---") ||
      line.startsWith("diff ") ||
      line.startsWith("index ")
    )
      out.push({ kind: "meta", text: line });
    else if (line.startsWith("+")) out.push({ kind: "add", text: line.slice(1), ...(n !== null ? { new: n++ } : {}) });
    else if (line.startsWith("-")) out.push({ kind: "del", text: line.slice(1), ...(o !== null ? { old: o++ } : {}) });
    else {
      const text = line.startsWith(" ") ? line.slice(1) : line;
      out.push({ kind: "same", text, ...(o !== null && n !== null ? { old: o++, new: n++ } : {}) });
    }
  }
  return out;
}
