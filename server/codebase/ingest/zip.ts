/**
 * A zip upload (already streamed to a file on disk by the HTTP layer) extracted into a snapshot.
 *
 * The archive is read three times, each time only its central directory plus the data of the
 * entries that pass needs — yauzl reads at random offsets, so nothing is held in memory whole:
 *   1. scan:    every entry name validated (zip-slip, absolute, NUL → the whole archive is refused),
 *               the entry count capped, .gitignore files read (they can sit anywhere in the order);
 *   2. plan:    the ignore matcher decides what would be written, and every cap is checked against
 *               the declared sizes — so a zip bomb is refused before a single byte is written;
 *   3. extract: entries streamed to disk. yauzl fails an entry whose data is longer or shorter than
 *               declared, and we check each CRC, so the declared sizes the caps trusted are the truth.
 * Archive symlinks are never materialised (reported as dropped), whatever they point to. Modes are
 * not kept. A single top-level folder ("repo-main/") is stripped.
 */
import { open as openFile, stat } from "node:fs/promises";
import path from "node:path";
import { PassThrough, pipeline, type Readable } from "node:stream";
import { crc32 } from "node:zlib";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { createIgnoreMatcher, MAX_GITIGNORE_BYTES, type IgnoreMatcher } from "../filters.ts";
import { ingestError, IngestError, quote } from "./errors.ts";
import { describeCap, type IngestLimits } from "./limits.ts";
import { inside, safeRelativePath } from "./paths.ts";
import { fileTooLarge, runIngest, type IngestContext } from "./run.ts";
import type { IngestOptions, IngestSummary } from "./types.ts";
import { writeCapped } from "./write.ts";

export interface ZipIngestOptions extends IngestOptions {
  /** The uploaded archive on disk. It is only read; the caller deletes it afterwards. */
  zipPath: string;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** All .gitignore files of one archive together (a real project's come to a few KB). */
const GITIGNORE_BUDGET_BYTES = 8 * 1024 * 1024;
/** Below this, a high ratio is harmless (a 200 KB file of blanks compresses 1000:1 and is fine). */
const RATIO_MIN_BYTES = 1024 * 1024;

interface EntryInfo {
  rel: string;
  kind: "file" | "dir" | "symlink" | "special";
}

/** Names and classifies an entry. Throws unsafe_path for a name that could escape the snapshot. */
function describe(entry: Entry): EntryInfo {
  const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  const isDir = raw.endsWith("/") || type === S_IFDIR;
  // "./" (some zippers add it) names the root itself.
  if (isDir && /^(\.\/)*$/.test(raw)) return { rel: "", kind: "dir" };
  const rel = safeRelativePath(raw, "archive entry");
  // Unix mode bits live in the high half of the external attributes; 0 means "no unix mode" (DOS).
  if (isDir) return { rel, kind: "dir" };
  if (type === S_IFLNK) return { rel, kind: "symlink" };
  if (type !== 0 && type !== S_IFREG) return { rel, kind: "special" };
  return { rel, kind: "file" };
}

type Decision =
  { action: "write" } | { action: "drop"; reason: "ignored" | "symlink" | "special" } | { action: "none" };

function decide(info: EntryInfo, matcher: IgnoreMatcher): Decision {
  if (info.kind === "dir") return { action: "none" };
  if (matcher.ignores(info.rel)) return { action: "drop", reason: "ignored" };
  if (info.kind === "symlink" || info.kind === "special") return { action: "drop", reason: info.kind };
  return { action: "write" };
}

const MAGIC: [string, (b: Buffer) => boolean][] = [
  ["a gzip file (.tar.gz / .tgz)", (b) => b[0] === 0x1f && b[1] === 0x8b],
  ["a tar archive", (b) => b.subarray(257, 262).toString("latin1") === "ustar"],
  ["a 7-Zip archive", (b) => b.subarray(0, 6).equals(Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]))],
  ["a RAR archive", (b) => b.subarray(0, 4).toString("latin1") === "Rar!"],
  ["a bzip2 file", (b) => b.subarray(0, 3).toString("latin1") === "BZh"],
  ["an xz file", (b) => b.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))],
];

/** Why a file yauzl can't open isn't a usable zip, in words a user can act on. */
async function notAZip(zipPath: string, err: unknown): Promise<IngestError> {
  const head = Buffer.alloc(512);
  const fh = await openFile(zipPath, "r");
  try {
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  const kind = MAGIC.find(([, test]) => test(head))?.[0];
  if (kind)
    return ingestError(
      "not_a_zip",
      `The upload is ${kind}, not a zip archive (it was probably renamed). Upload a .zip, or extract it and upload the folder.`,
    );
  if (head.subarray(0, 2).toString("latin1") === "PK") {
    return ingestError(
      "corrupt_archive",
      `The zip archive is corrupt or truncated (${(err as Error).message}). Re-create it, or upload it again.`,
    );
  }
  return ingestError("not_a_zip", "The upload is not a zip archive. Upload a .zip file, or the project's folder.");
}

async function openZip(zipPath: string): Promise<ZipFile> {
  try {
    // decodeStrings off: we decode names ourselves (getFileNameLowLevel) and validate them with our
    // own rules and messages instead of yauzl's generic "invalid relative path" error.
    return await yauzl.openPromise(zipPath, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
      autoClose: false,
    });
  } catch (err) {
    throw await notAZip(zipPath, err);
  }
}

/** Iterates the central directory; anything that isn't ours or a filesystem error means a corrupt archive. */
async function forEachEntry(
  zipPath: string,
  fn: (entry: Entry, zip: ZipFile) => Promise<void>,
  onOpen?: (zip: ZipFile) => void,
): Promise<void> {
  const zip = await openZip(zipPath);
  try {
    onOpen?.(zip);
    for await (const entry of zip.eachEntry()) await fn(entry, zip);
  } catch (err) {
    if (err instanceof IngestError) throw err;
    const e = err as NodeJS.ErrnoException;
    if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) throw err; // ENOSPC, EACCES…: ours, not the archive's
    throw ingestError(
      "corrupt_archive",
      `The zip archive is corrupt (${e.message}). Re-create it, or upload it again.`,
    );
  } finally {
    zip.close();
  }
}

function checkDecodable(entry: Entry, rel: string): void {
  if (entry.isEncrypted())
    throw ingestError("unsupported_entry", `${quote(rel)} is password-protected; upload an unencrypted zip.`);
  if (!entry.canDecodeFileData()) {
    throw ingestError(
      "unsupported_entry",
      `${quote(rel)} uses compression method ${entry.compressionMethod}, which Argus can't read; re-create the zip with standard (deflate) compression.`,
    );
  }
}

function ratioRefusal(limits: IngestLimits, what: string, ratio: number): IngestError {
  return ingestError(
    "cap_ratio",
    `${what} expands ${Math.round(ratio)}:1, over ${describeCap(limits, "maxCompressionRatio")}; this looks like a zip bomb, so the archive was refused.`,
  );
}

/**
 * An entry's data as a well-behaved stream. yauzl forwards a zlib error with a bare emit("error") a
 * tick later — possibly before the consumer has started reading (an uncaught exception) and without
 * marking the stream errored (a consumer starting later would wait forever). pipeline() listens from
 * the start and destroys the PassThrough with the error, which any later reader then sees; a reader
 * stopping early destroys the source in turn.
 */
async function entryStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  const source = await zip.openReadStreamPromise(entry);
  const out = new PassThrough();
  pipeline(source, out, () => {});
  return out;
}

async function readSmall(zip: ZipFile, entry: Entry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await entryStream(zip, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Pass 1: names, entry count, .gitignore contents. */
async function scan(zipPath: string, ctx: IngestContext): Promise<Map<string, string>> {
  const gitignores = new Map<string, string>();
  let seen = 0;
  let gitignoreBytes = 0;
  const checkCount = (zip: ZipFile) => {
    if (zip.entryCount === 0) throw ingestError("empty", "The zip archive is empty: it has no files.");
    if (zip.entryCount > ctx.limits.maxArchiveEntries) {
      throw ingestError(
        "cap_archive_entries",
        `The archive has ${zip.entryCount} entries, over ${describeCap(ctx.limits, "maxArchiveEntries")}.`,
      );
    }
  };
  await forEachEntry(
    zipPath,
    async (entry, zip) => {
      ctx.progress({ phase: "scanning", bytes: 0, files: ++seen });
      const info = describe(entry);
      if (info.kind !== "file" || path.posix.basename(info.rel) !== ".gitignore") return;
      if (entry.uncompressedSize > MAX_GITIGNORE_BYTES || entry.isEncrypted() || !entry.canDecodeFileData()) return;
      // They are held in memory: past a budget no real project needs, further ones are not honoured.
      if ((gitignoreBytes += entry.uncompressedSize) > GITIGNORE_BUDGET_BYTES) return;
      const dir = path.posix.dirname(info.rel);
      gitignores.set(dir === "." ? "" : dir, await readSmall(zip, entry));
    },
    checkCount,
  );
  return gitignores;
}

/** Pass 2: what would be written, checked against every cap before anything is. Returns the byte total. */
async function plan(
  zipPath: string,
  archiveBytes: number,
  matcher: IgnoreMatcher,
  ctx: IngestContext,
): Promise<number> {
  const { limits } = ctx;
  let files = 0;
  let total = 0;
  await forEachEntry(zipPath, async (entry) => {
    const info = describe(entry);
    const d = decide(info, matcher);
    if (d.action === "drop") ctx.drop(info.rel, d.reason);
    if (d.action !== "write") return;
    checkDecodable(entry, info.rel);
    const size = entry.uncompressedSize;
    if (size > limits.maxFileBytes) throw fileTooLarge(limits, info.rel);
    if (++files > limits.maxFiles) {
      throw ingestError(
        "cap_files",
        `The archive has too many files: more than ${describeCap(limits, "maxFiles")}. Leave out generated files or raise the cap.`,
      );
    }
    total += size;
    if (total > limits.maxTotalBytes) {
      throw ingestError(
        "cap_total_bytes",
        `The archive expands past ${describeCap(limits, "maxTotalBytes")}. Leave out large data or raise the cap.`,
      );
    }
    const ratio = size / Math.max(entry.compressedSize, 1);
    if (size >= RATIO_MIN_BYTES && ratio > limits.maxCompressionRatio)
      throw ratioRefusal(limits, `The entry ${quote(info.rel)}`, ratio);
  });
  // Overlapping-entry bombs keep each entry's ratio modest; the whole archive's can't hide.
  const ratio = total / Math.max(archiveBytes, 1);
  if (total >= RATIO_MIN_BYTES && ratio > limits.maxCompressionRatio) throw ratioRefusal(limits, "The archive", ratio);
  return total;
}

/** Pass 3: stream every planned entry to disk, verifying its CRC. */
async function extract(
  zipPath: string,
  tree: string,
  matcher: IgnoreMatcher,
  totalBytes: number,
  ctx: IngestContext,
): Promise<void> {
  await forEachEntry(zipPath, async (entry, zip) => {
    ctx.signal?.throwIfAborted();
    const info = describe(entry);
    if (decide(info, matcher).action !== "write") return;
    ctx.tally.addFile();
    let crc = 0;
    await writeCapped(inside(tree, info.rel), info.rel, () => entryStream(zip, entry), {
      maxBytes: ctx.limits.maxFileBytes,
      tooLarge: () => fileTooLarge(ctx.limits, info.rel),
      onChunk: (chunk) => (crc = crc32(chunk, crc)),
      onBytes: (n) => {
        ctx.tally.addBytes(n);
        ctx.progress({ phase: "extracting", bytes: ctx.tally.bytes, totalBytes, files: ctx.tally.files });
      },
    });
    if (crc !== entry.crc32)
      throw ingestError(
        "corrupt_archive",
        `The zip archive is corrupt: ${quote(info.rel)} fails its checksum. Re-create it, or upload it again.`,
      );
  });
}

export function ingestZip(options: ZipIngestOptions): Promise<IngestSummary> {
  return runIngest("zip", options, async (tree, ctx) => {
    const { size } = await stat(options.zipPath);
    if (size === 0) throw ingestError("empty", "The uploaded file is empty (0 bytes).");
    const gitignores = await scan(options.zipPath, ctx);
    const matcher = createIgnoreMatcher({ readGitignore: (dir) => gitignores.get(dir) });
    const totalBytes = await plan(options.zipPath, size, matcher, ctx);
    await extract(options.zipPath, tree, matcher, totalBytes, ctx);
    return { stripSingleTopFolder: true };
  });
}
