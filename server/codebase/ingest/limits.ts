/**
 * Ingest caps. One plain object with defaults; the config layer maps environment variables onto it
 * (LIMIT_ENV names them, and every refusal message quotes the variable to raise).
 */
import { z } from "zod";

const MiB = 1024 * 1024;

export const ingestLimitsSchema = z.object({
  /** Bytes written into one snapshot (archives: uncompressed; git: the checked-out tree and the download). */
  maxTotalBytes: z
    .number()
    .int()
    .positive()
    .default(2048 * MiB),
  /** Files written into one snapshot. */
  maxFiles: z.number().int().positive().default(200_000),
  /** One file's size. Bigger files refuse the ingest (they are rarely source, and they fill disks). */
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(50 * MiB),
  /** Uncompressed ÷ compressed, per archive entry and for the whole archive (zip bombs). */
  maxCompressionRatio: z.number().positive().default(100),
  /** Entries in an archive's central directory, counted before anything is read (ignored ones too). */
  maxArchiveEntries: z.number().int().positive().default(1_000_000),
  /** Text files bigger than this are kept on disk but not indexed (skipped as too_large). */
  indexMaxFileBytes: z
    .number()
    .int()
    .positive()
    .default(1 * MiB),
  /** Wall-clock budget for one git clone/fetch + checkout. */
  gitTimeoutMs: z.number().int().positive().default(300_000),
});

export type IngestLimits = z.infer<typeof ingestLimitsSchema>;
export type IngestLimitsInput = z.input<typeof ingestLimitsSchema>;

export const DEFAULT_INGEST_LIMITS: IngestLimits = ingestLimitsSchema.parse({});

/** The environment variable an operator sets to change each cap (units in the name). */
export const LIMIT_ENV: Record<keyof IngestLimits, string> = {
  maxTotalBytes: "INGEST_MAX_TOTAL_MB",
  maxFiles: "INGEST_MAX_FILES",
  maxFileBytes: "INGEST_MAX_FILE_MB",
  maxCompressionRatio: "INGEST_MAX_COMPRESSION_RATIO",
  maxArchiveEntries: "INGEST_MAX_ARCHIVE_ENTRIES",
  indexMaxFileBytes: "INDEX_MAX_FILE_KB",
  gitTimeoutMs: "INGEST_GIT_TIMEOUT_SECONDS",
};

export function resolveLimits(input?: IngestLimitsInput): IngestLimits {
  return ingestLimitsSchema.parse(input ?? {});
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || Number.isInteger(v) ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** "the single-file cap (50 MB; INGEST_MAX_FILE_MB)" — the cap's value and the variable that raises it. */
export function describeCap(limits: IngestLimits, key: keyof IngestLimits): string {
  const v = limits[key];
  const label: Record<keyof IngestLimits, string> = {
    maxTotalBytes: `the total-size cap (${formatBytes(v)}`,
    maxFiles: `the file-count cap (${v} files`,
    maxFileBytes: `the single-file cap (${formatBytes(v)}`,
    maxCompressionRatio: `the compression-ratio cap (${v}:1`,
    maxArchiveEntries: `the archive-entry cap (${v} entries`,
    indexMaxFileBytes: `the index file-size cap (${formatBytes(v)}`,
    gitTimeoutMs: `the git time limit (${Math.round(v / 1000)} s`,
  };
  return `${label[key]}; ${LIMIT_ENV[key]})`;
}
