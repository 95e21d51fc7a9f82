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
