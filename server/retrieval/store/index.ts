/** The retrieval store: the only module that knows LanceDB. */
export { connect, type Store } from "./connect.ts";
export { openChunkIndex, type ChunkIndex, type RankedRow, type TextHit } from "./chunk-index.ts";
export {
  replaceIndex,
  updateIndex,
  dropIndex,
  type WriteResult,
  type ReplaceInput,
  type UpdateInput,
} from "./write.ts";
export { DEFAULT_ANN_THRESHOLD, planIndexes, type IndexPlan, type VectorIndexKind } from "./indexes.ts";
export { optimizeIndex, type OptimizeResult } from "./maintenance.ts";
export { copyIndex } from "./copy.ts";
export { createIndexCache, type IndexCache } from "./index-cache.ts";
export { globToRegex, sqlIn, sqlString } from "./sql.ts";
export type { ChunkRow, StoredHit } from "./schema.ts";
