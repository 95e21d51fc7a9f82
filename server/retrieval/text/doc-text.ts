/**
 * The natural-language part of a code chunk that says what it does: the description (up to the
 * first blank or tag line) of its docstrings and doc comments (`/** … *\/`). A question is asked in
 * words, and in code those words are there, not in its statements; text/fields.ts indexes them with
 * the names. Line comments are left out: inside a function they talk about how, not what, and on
 * the JavaScript questions' development half indexing them lowered MRR@10 (0.514 → 0.490). Lexical,
 * not parsed: a docstring-like string inside code counts as one.
 */
const DOC_COMMENT = /\/\*\*([\s\S]*?)\*\//g;
const TRIPLE_QUOTED = /("""|''')([\s\S]*?)\1/g;

/** Languages whose chunks are prose: the whole chunk is natural language already. */
const PROSE = new Set(["markdown", "text"]);

/** The descriptions of a chunk's docstrings and doc comments, joined by newlines ("" for none). */
export function docText(text: string, language: string): string {
  if (PROSE.has(language)) return "";
  const out: string[] = [];
  const take = (re: RegExp, group: number) => {
    for (const m of text.matchAll(re)) out.push(summary(m[group]!));
  };
  if (language === "python") take(TRIPLE_QUOTED, 2);
  else take(DOC_COMMENT, 1);
  return out.join("\n");
}

/** A doc's description: up to its first blank line or tag line (`@param`, `Args:`), stars dropped. */
function summary(doc: string): string {
  const lines = doc.split("\n").map((l) => l.replace(/^\s*\*?\s?/, ""));
  const out: string[] = [];
  for (const l of lines) {
    if (!l.trim()) {
      if (out.length) break;
      continue;
    }
    if (/^\s*@/.test(l) || /^\s*(Args|Arguments|Returns|Raises|Parameters|Example|Examples):/.test(l)) break;
    out.push(l.trim());
  }
  return out.join(" ");
}
