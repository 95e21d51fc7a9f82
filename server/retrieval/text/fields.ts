/**
 * What full text indexes of a chunk, in two fields searched together (store/chunk-index.ts):
 *  - `searchText`: the chunk's own words — code and its comments, or prose;
 *  - `namesText`: where it lives and what it defines — the file path, the symbol path and the names
 *    of the definitions it covers (a knowledge base: the document's name and title) — and what its
 *    docs say it does: the description of each docstring and doc comment (text/doc-text.ts). A
 *    query word found here says more than one in the body (`retry` in `retryRequest` vs a `retry`
 *    variable; "copy" in "Copy data and metadata" vs a `copy` call), so this field weighs more
 *    (store/indexes.ts FULLTEXT_FIELD_BOOSTS). Questions are asked in the docs' words: on the Python
 *    questions' development half this took full text from 0.303 to 0.440 MRR@10 (bench/measure/
 *    relevance-fit.ts), and changed nothing on the JavaScript questions, whose functions carry few.
 * Both are identifier-split with the compound kept (`parseConfigFile` → `parseconfigfile parse config
 * file`) and CJK runs cut into overlapping pairs of characters (split-identifiers.ts), exactly as the
 * query is (search.ts); stemming, stop words and ASCII folding are then LanceDB's, the same on both
 * sides because both go through the field's tokenizer.
 */
import { splitIdentifiersInText } from "../split-identifiers.ts";
import { docText } from "./doc-text.ts";

export interface FieldSource {
  path: string;
  symbolPath?: string | null;
  /** Paths of the definitions the chunk covers ("Greeter.hi"). */
  symbolNames?: readonly string[];
  text: string;
  /** The chunk's language; its docs are indexed with the names when given (text/doc-text.ts). */
  language?: string;
}

export function searchFields(c: FieldSource): { searchText: string; namesText: string } {
  const names = new Set([c.symbolPath ?? "", ...(c.symbolNames ?? [])].filter(Boolean));
  return {
    searchText: splitIdentifiersInText(c.text, { keepOriginal: true }),
    namesText: splitIdentifiersInText(
      `${c.path} ${[...names].join(" ")}${c.language ? ` ${docText(c.text, c.language)}` : ""}`,
      { keepOriginal: true },
    ),
  };
}
