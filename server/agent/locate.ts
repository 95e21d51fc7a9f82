/**
 * Checks a finding's location against the snapshot: its lines must exist and contain the quoted
 * evidence. Models are often a few lines off, quote the line numbers the tools printed, quote a
 * fragment of a line, or elide the middle of a block with "...". So the evidence is matched line by
 * line after normalising whitespace (a block may begin and end mid-line, see quotedAt); a "..."
 * line splits the evidence into pieces that must appear in order; line-number prefixes are stripped
 * when the raw quote does not match.
 *
 * - found inside the claimed range → ok (range kept)
 * - found elsewhere in the file → repaired: the range becomes the occurrence nearest the claimed start
 * - not found, file missing, path outside the snapshot → dropped, with the reason
 *
 * On success `evidence` is replaced by the file's own lines of the occurrence, so the report always
 * shows real code and the fingerprint does not depend on how much of a line the model quoted.
 */

export type LocateResult =
  | { status: "ok" | "repaired"; startLine: number; endLine: number; evidence: string }
  | { status: "dropped"; reason: string };

const MAX_EVIDENCE_LINES = 40;
/** Pieces of an elided quote must follow each other within this many lines. */
const MAX_GAP = 400;

export function locateEvidence(
  content: string,
  claim: { startLine: number; endLine: number; evidence: string },
): LocateResult {
  const fileLines = content.split(/\r?\n/);
  if (fileLines.at(-1) === "") fileLines.pop(); // a trailing newline does not make a line
  const normFile = fileLines.map(norm);
  const n = fileLines.length;
  const quote = (s: number, e: number) => fileLines.slice(s - 1, Math.min(e, s + MAX_EVIDENCE_LINES - 1)).join("\n");

  const pieces = evidencePieces(claim.evidence);
  // A quote like "}" or ");" would match anywhere; it proves nothing, so it counts as no quote.
  if ((pieces.flat().join("").match(/\w/g)?.length ?? 0) < 3) {
    // Nothing quoted: the lines must at least exist; the report then quotes them itself.
    if (claim.startLine > n)
      return {
        status: "dropped",
        reason: `lines ${claim.startLine}–${claim.endLine} do not exist (the file has ${n} lines) and no evidence was quoted`,
      };
    const end = Math.min(claim.endLine, n);
    return {
      status: end === claim.endLine ? "ok" : "repaired",
      startLine: claim.startLine,
      endLine: end,
      evidence: quote(claim.startLine, end),
    };
  }

  let found = occurrences(normFile, pieces);
  if (found.length === 0) {
    const stripped = stripLineNumbers(claim.evidence);
    if (stripped !== undefined) found = occurrences(normFile, evidencePieces(stripped));
  }
  if (found.length === 0) return { status: "dropped", reason: "the quoted evidence does not occur in the file" };

  const inside = found.find(([s, e]) => s >= claim.startLine && e <= claim.endLine && claim.endLine <= n);
  if (inside)
    return { status: "ok", startLine: claim.startLine, endLine: claim.endLine, evidence: quote(inside[0], inside[1]) };

  const [s, e] = found.reduce((best, r) =>
    Math.abs(r[0] - claim.startLine) < Math.abs(best[0] - claim.startLine) ? r : best,
  );
  return { status: "repaired", startLine: s, endLine: e, evidence: quote(s, e) };
}

/** Whitespace-insensitive form of one line. */
function norm(line: string): string {
  return line.trim().replace(/\s+/g, " ");
}

const ELLIPSIS = /^(?:\/\/|#|--|\/\*|\*)?\s*(?:\.\.\.|…)\s*(?:\*\/)?$/;

/** The evidence as pieces of consecutive normalised lines, split at "..." lines, blank lines dropped. */
function evidencePieces(evidence: string): string[][] {
  const pieces: string[][] = [[]];
  for (const raw of evidence.replace(/^\s*```[a-zA-Z]*\s*\n|\n\s*```\s*$/g, "").split(/\r?\n/)) {
    const line = norm(raw);
    if (ELLIPSIS.test(line)) pieces.push([]);
    else if (line) pieces.at(-1)!.push(line);
  }
  return pieces.filter((p) => p.length > 0);
}

/** The evidence without "12: " / "12 | " / "12\t" prefixes, if every non-blank line has one. */
function stripLineNumbers(evidence: string): string | undefined {
  const prefix = /^\s*\d+(?:\s*[:|]\s?|\t)/;
  const lines = evidence.split(/\r?\n/);
  if (!lines.filter((l) => l.trim()).every((l) => prefix.test(l))) return undefined;
  return lines.map((l) => l.replace(prefix, "")).join("\n");
}

/**
 * Whether `piece` (normalised lines) is quoted from the file at line index i. A quoted block may start
 * mid-line and stop mid-line, but its inner lines are whole; a single quoted line may be any fragment,
 * unless it is too short to mean anything ("}"), which must then be the whole line.
 */
function quotedAt(file: string[], piece: string[], i: number): boolean {
  if (i + piece.length > file.length) return false;
  if (piece.length === 1) {
    const p = piece[0]!;
    return (p.match(/\w/g)?.length ?? 0) < 3 ? file[i] === p : file[i]!.includes(p);
  }
  return piece.every((p, j) => {
    const line = file[i + j]!;
    if (j === 0) return line.endsWith(p);
    if (j === piece.length - 1) return line.startsWith(p);
    return line === p;
  });
}

/** 1-based [start, end] of every place where all pieces occur in order. */
function occurrences(file: string[], pieces: string[][]): Array<[number, number]> {
  const at = (piece: string[], i: number) => quotedAt(file, piece, i);
  const out: Array<[number, number]> = [];
  const first = pieces[0]!;
  for (let i = 0; i < file.length; i++) {
    if (!at(first, i)) continue;
    let end = i + first.length - 1;
    let ok = true;
    for (const piece of pieces.slice(1)) {
      let j = end + 1;
      while (j < file.length && j - end <= MAX_GAP && !at(piece, j)) j++;
      if (j >= file.length || j - end > MAX_GAP) {
        ok = false;
        break;
      }
      end = j + piece.length - 1;
    }
    if (ok) out.push([i + 1, end + 1]);
  }
  return out;
}
