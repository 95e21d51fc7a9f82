/**
 * Text clean-up applied to every parsed document, as UltraRAG's `build_text_corpus` does (spec §5.6):
 * ideographic spaces become spaces, CRLF/CR become LF, runs of three or more newlines become two.
 * Also: trailing spaces on lines go, and control characters other than tab/newline are dropped
 * (they confuse tokenizers and terminals and carry no meaning in prose).
 */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\u3000/g, " ")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Whether the text has anything worth indexing: at least one letter or digit. */
export function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}
