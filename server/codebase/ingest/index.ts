/** The ingest library: one function per source, all returning an IngestSummary. */
export { ingestZip, type ZipIngestOptions } from "./zip.ts";
export { ingestFiles, type FilesIngestOptions, type UploadedFile } from "./files.ts";
export { ingestFolder, type FolderIngestOptions } from "./folder.ts";
export { ingestOnto, type OntoIngestOptions } from "./onto.ts";
export { ingestGit, type GitIngestOptions } from "./git.ts";
export { ingestPath, type PathIngestOptions } from "./path.ts";
export { parseGitUrl, type ParsedGitUrl } from "./git-url.ts";
export { planGitConnection, OPERATOR_GIT_POLICY, type GitNetworkPolicy } from "./git-network.ts";
export { resolveImportPath, type ImportPathPolicy } from "./path-policy.ts";
export { IngestError, ingestError, type IngestErrorCode } from "./errors.ts";
export {
  ingestLimitsSchema,
  resolveLimits,
  DEFAULT_INGEST_LIMITS,
  LIMIT_ENV,
  describeCap,
  type IngestLimits,
  type IngestLimitsInput,
} from "./limits.ts";
export type { IngestPhase, IngestProgress, ProgressFn } from "./progress.ts";
export type {
  DroppedEntry,
  GitSnapshotInfo,
  IngestOptions,
  IngestSource,
  IngestSummary,
  LanguageStats,
} from "./types.ts";
