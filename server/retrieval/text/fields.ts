/**
 * What full text indexes of a chunk, in two fields searched together (store/chunk-index.ts):
 *  - `searchText`: the chunk's own words — code and its comments, or prose;
 *  - `namesText`: where it lives and what it defines — the file path, the symbol path and the names
 *    of the definitions it covers (a knowledge base: the document's name and title). A query word
 *    found here says more than one in the body (`retry` in `retryRequest` vs a `retry` variable),
 *    so this field weighs more (store/indexes.ts FULLTEXT_FIELD_BOOSTS).
 * Both are identifier-split with the compound kept (`parseConfigFile` → `parseconfigfile parse config
 * file`) and CJK runs cut into overlapping pairs of characters (split-identifiers.ts), exactly as the
 * query is (search.ts); stemming, stop words and ASCII folding are then LanceDB's, the same on both
 * sides because both go through the field's tokenizer.
 */
import { splitIdentifiersInText } from "../split-identifiers.ts";

export interface FieldSource {
  path: string;
  symbolPath?: string | null;
  /** Paths of the definitions the chunk covers ("Greeter.hi"). */
  symbolNames?: readonly string[];
  text: string;
}

export function searchFields(c: FieldSource): { searchText: string; namesText: string } {
  const names = new Set([c.symbolPath ?? "", ...(c.symbolNames ?? [])].filter(Boolean));
  return {
    searchText: splitIdentifiersInText(c.text, { keepOriginal: true }),
    namesText: splitIdentifiersInText(`${c.path} ${[...names].join(" ")}`, { keepOriginal: true }),
  };
}
