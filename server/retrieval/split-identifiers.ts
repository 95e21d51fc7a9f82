/**
 * Identifier splitting for code search. Code names glue words together (`parseConfigFile`,
 * `MAX_RETRY_COUNT`, `HTTPServer2`), while people search with the words (`config`). Both the hash
 * embedder's features and the full-text search column go through here, so a query word matches the
 * same sub-token in either mode.
 */

/**
 * One identifier's parts, in order, case preserved. Boundaries: `_ - $ .` and other non-letters,
 * lower→Upper (`parseConfig`), the end of an acronym before a capitalised word (`HTTPServer` →
 * HTTP, Server; `URLs` stays URL, s), and letter↔digit (`utf8` → utf, 8). Letters without case (CJK…) stay together.
 */
const PART = /\p{Lu}+(?=\p{Lu}\p{Ll}{2})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|\p{Lo}+|\p{L}/gu;

export function splitIdentifier(identifier: string): string[] {
  return identifier.match(PART) ?? [];
}

/** Runs of identifier characters in free text (code or prose). `$` and `_` belong to names in JS/TS. */
export const IDENTIFIER = /[\p{L}\p{N}_$]+/gu;

export interface SplitTextOptions {
  /** Keep the compound identifier before its parts (`parseConfigFile parse config file`), so an exact
   * name query still matches as one term. Default false. */
  keepOriginal?: boolean;
}

/** Scripts written without spaces between words. */
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u;

/**
 * A run of Chinese or Japanese characters has no word boundaries to split on, so it is indexed and
 * searched as overlapping character pairs (`检索增强` → 检索 索增 增强), the usual bigram approach:
 * a query word of two or more characters then matches inside a longer run. A single character stays.
 */
export function cjkBigrams(part: string): string[] {
  if (!UNSPACED.test(part)) return [part];
  const chars = [...part];
  if (chars.length < 3) return [part];
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/**
 * Text with every compound identifier replaced by its lower-cased parts, separated by spaces:
 * `parseConfigFile(x)` → `parse config file x`. Punctuation becomes a space (it carries nothing a
 * word-based full-text index can use). Plain words are lower-cased and kept.
 */
export function splitIdentifiersInText(text: string, options: SplitTextOptions = {}): string {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const id = match[0];
    const parts = splitIdentifier(id).flatMap(cjkBigrams);
    if (parts.length <= 1) {
      // `_` or `$` alone has no part; a single word stays as it is (lower-cased).
      if (parts.length === 1) out.push(parts[0]!.toLowerCase());
      continue;
    }
    if (options.keepOriginal && !UNSPACED.test(id)) out.push(id.toLowerCase());
    for (const p of parts) out.push(p.toLowerCase());
  }
  return out.join(" ");
}
