/**
 * Symbol index of a snapshot: build it once per snapshot (buildSymbolIndex), then query it
 * (openSymbolIndex → listSymbols / findDefinition / findReferences / findModule).
 */
export { buildSymbolIndex, type BuildOptions, type BuildResult } from "./build.ts";
export {
  openSymbolIndex,
  SymbolIndex,
  type ImportEdge,
  type IndexedFile,
  type IndexStats,
  type ListSymbolsOptions,
} from "./index-reader.ts";
export type * from "./types.ts";

import { openSymbolIndex as open } from "./index-reader.ts";

/** The paths of a snapshot a review looks at: every indexed file the symbol pass did not skip. */
export function reviewableFiles(symbolsPath: string): string[] {
  const symbols = open(symbolsPath);
  try {
    return symbols
      .files()
      .filter((f) => f.status !== "skipped")
      .map((f) => f.path);
  } finally {
    symbols.close();
  }
}
