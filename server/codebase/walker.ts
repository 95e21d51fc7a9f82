/**
 * Walks a snapshot root and lists its text files: { path (posix, relative), size, language, lines }.
 *
 * Never follows a symlink (listed as skipped, whether it points inside or out), never opens FIFOs or
 * devices, never descends into an ignored directory. Files it won't index are skipped with a reason,
 * never an exception:
 * - binary:      a NUL byte in the first 8 KB (UTF-16 text included).
 * - minified:    a line ≥ 4 KB while the average line is ≥ 400 bytes in the first 64 KB — bundles,
 *                one-line JSON dumps, a 10 MB single-line file. Checked before the size cap, so such a
 *                file is reported as minified whatever its size.
 * - too_large:   bigger than maxFileBytes (read: only the first 64 KB, to classify it).
 * - file_cap:    past maxFiles files read; the result is marked truncated.
 * - symlink, special (FIFO/socket/device), unreadable (permission, vanished mid-walk).
 * Invalid UTF-8 is NOT skipped: legacy Latin-1 sources are real code, and lossy decoding (U+FFFD)
 * keeps every line break where it was, so line numbers stay right. Such files carry `utf8: false`.
 */
import { isUtf8 } from "node:buffer";
import { closeSync, constants, fstatSync, openSync, promises as fsp, readSync, type Dirent } from "node:fs";
import path from "node:path";
import { createIgnoreMatcher, type IgnoreMatcher } from "./filters.ts";
import { BINARY_SNIFF_BYTES, detectLanguage, isBinary, type LanguageId } from "./languages.ts";

export const WALK_DEFAULTS = { maxFiles: 200_000, maxFileBytes: 1024 * 1024 } as const;

/** How much of a file the minified/binary checks look at. */
const SAMPLE_BYTES = 64 * 1024;
const MINIFIED_MIN_LONGEST_LINE = 4096;
const MINIFIED_MIN_AVERAGE_LINE = 400;
/** walk() reads synchronously; it gives the event loop a turn at least this often. */
const YIELD_EVERY_MS = 10;
/** Reported lists (skipped, ignored) keep this many entries; the counts are always complete. */
export const MAX_REPORTED = 1000;

// O_NOFOLLOW: a file swapped for a symlink between listing and opening fails instead of being read.
// O_NONBLOCK: a file swapped for a FIFO can't hang the walk.
export const SAFE_OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export type SkipReason = "binary" | "minified" | "too_large" | "file_cap" | "symlink" | "special" | "unreadable";

export interface WalkedFile {
  path: string;
  size: number;
  language: LanguageId;
  lines: number;
  /** Present (false) when the content is not valid UTF-8 and will be read lossily. */
  utf8?: false;
}

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  size?: number;
}

export interface WalkResult {
  files: WalkedFile[];
  /** The first MAX_REPORTED skipped files. */
  skipped: SkippedFile[];
  skippedCounts: Partial<Record<SkipReason, number>>;
  /** The first MAX_REPORTED ignored paths, top-most only ("node_modules/", not what is inside). */
  ignored: string[];
  ignoredCount: number;
  /** maxFiles was reached: files past it were not read, only counted as file_cap skips. */
  truncated: boolean;
}

export interface WalkOptions {
  /** Default: DEFAULT_IGNORES + the root's .gitignore files. */
  matcher?: IgnoreMatcher;
  /** Files read at most (text or not); the rest are counted as file_cap skips. */
  maxFiles?: number;
  /** Bigger files are skipped as too_large (only their first 64 KB is read, to classify them). */
  maxFileBytes?: number;
  signal?: AbortSignal;
  /** Called after each entry is classified (for progress). */
  onFile?: (filesSeen: number, bytesSeen: number) => void;
}

export type TraverseEntry =
  | { kind: "file"; path: string; abs: string }
  | { kind: "ignored"; path: string }
  | { kind: "skip"; path: string; reason: "symlink" | "special" | "unreadable" };

/**
 * Depth-first listing, in name order at every level, of every non-ignored entry under root. Symlinks
 * and special files are reported, never followed or opened. Shared by the walker and the local-path
 * ingest. `dir` is internal ("" = root, else "a/b/").
 */
export async function* traverse(
  root: string,
  matcher: IgnoreMatcher,
  signal?: AbortSignal,
  dir = "",
): AsyncGenerator<TraverseEntry> {
  signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(path.join(root, dir), { withFileTypes: true });
  } catch {
    yield { kind: "skip", path: dir || ".", reason: "unreadable" };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const rel = dir + e.name;
    if (e.isDirectory()) {
      if (matcher.ignores(rel + "/")) yield { kind: "ignored", path: rel + "/" };
      else yield* traverse(root, matcher, signal, rel + "/");
    } else if (matcher.ignores(rel)) {
      yield { kind: "ignored", path: rel };
    } else if (e.isSymbolicLink()) {
      yield { kind: "skip", path: rel, reason: "symlink" };
    } else if (e.isFile()) {
      yield { kind: "file", path: rel, abs: path.join(root, rel) };
    } else {
      yield { kind: "skip", path: rel, reason: "special" };
    }
  }
}

function countLines(buf: Uint8Array): number {
  if (buf.length === 0) return 0;
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return buf[buf.length - 1] === 10 ? n : n + 1;
}

/** Minified/generated heuristic on a sample: one very long line and long lines on average. */
export function looksMinified(sample: Uint8Array): boolean {
  if (sample.length < MINIFIED_MIN_LONGEST_LINE) return false;
  let longest = 0;
  let lines = 0;
  let start = 0;
  for (let i = sample.indexOf(10); i !== -1; i = sample.indexOf(10, start)) {
    longest = Math.max(longest, i - start);
    lines++;
    start = i + 1;
  }
  if (start < sample.length) {
    longest = Math.max(longest, sample.length - start);
    lines++;
  }
  return longest >= MINIFIED_MIN_LONGEST_LINE && sample.length / lines >= MINIFIED_MIN_AVERAGE_LINE;
}

type Classified = { file: WalkedFile } | { skip: SkippedFile };

function readAt(fd: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buf, filled, length - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

/**
 * Reads (part of) one file and decides: indexed text file, or skipped with a reason.
 * Synchronous on purpose: for the many small files of a source tree, sync open/read/close is ~5×
 * faster than fs.promises (no thread-pool round trips); walk() yields to the event loop between files.
 */
export function classifyFile(abs: string, rel: string, maxFileBytes: number): Classified {
  let fd: number;
  try {
    fd = openSync(abs, SAFE_OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { skip: { path: rel, reason: code === "ELOOP" ? "symlink" : "unreadable" } };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { skip: { path: rel, reason: "special" } };
    const size = st.size;
    if (size > maxFileBytes) {
      const head = readAt(fd, Math.min(SAMPLE_BYTES, size));
      const reason = isBinary(head) ? "binary" : looksMinified(head) ? "minified" : "too_large";
      return { skip: { path: rel, reason, size } };
    }
    // Read exactly the size fstat reported: a file growing under us can't push past the cap.
    const content = readAt(fd, size);
    if (content.length < size) return { skip: { path: rel, reason: "unreadable", size } };
    if (isBinary(content)) return { skip: { path: rel, reason: "binary", size } };
    if (looksMinified(content.subarray(0, SAMPLE_BYTES))) return { skip: { path: rel, reason: "minified", size } };
    const file: WalkedFile = {
      path: rel,
      size,
      language: detectLanguage(rel, content.subarray(0, Math.min(size, BINARY_SNIFF_BYTES))),
      lines: countLines(content),
    };
    if (!isUtf8(content)) file.utf8 = false;
    return { file };
  } catch {
    return { skip: { path: rel, reason: "unreadable" } };
  } finally {
    closeSync(fd);
  }
}

/** Walks root and classifies every non-ignored file. Never throws for a file's content or type. */
export async function walk(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const matcher = options.matcher ?? createIgnoreMatcher({ root });
  const maxFiles = options.maxFiles ?? WALK_DEFAULTS.maxFiles;
  const maxFileBytes = options.maxFileBytes ?? WALK_DEFAULTS.maxFileBytes;
  const result: WalkResult = {
    files: [],
    skipped: [],
    skippedCounts: {},
    ignored: [],
    ignoredCount: 0,
    truncated: false,
  };
  const skip = (s: SkippedFile) => {
    result.skippedCounts[s.reason] = (result.skippedCounts[s.reason] ?? 0) + 1;
    if (result.skipped.length < MAX_REPORTED) result.skipped.push(s);
  };
  let seen = 0;
  let bytes = 0;
  let lastYield = performance.now();
  for await (const entry of traverse(root, matcher, options.signal)) {
    if (entry.kind === "ignored") {
      result.ignoredCount++;
      if (result.ignored.length < MAX_REPORTED) result.ignored.push(entry.path);
      continue;
    }
    if (entry.kind === "skip") {
      skip({ path: entry.path, reason: entry.reason });
      continue;
    }
    if (seen >= maxFiles) {
      // Keep counting (cheaply: no reads) so the report says how much was left out.
      result.truncated = true;
      skip({ path: entry.path, reason: "file_cap" });
      continue;
    }
    const c = classifyFile(entry.abs, entry.path, maxFileBytes);
    if ("file" in c) {
      result.files.push(c.file);
      bytes += c.file.size;
    } else {
      skip(c.skip);
    }
    seen++;
    options.onFile?.(seen, bytes);
    // The reads are synchronous: let timers, sockets and other requests run every few milliseconds.
    if (performance.now() - lastYield > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
  }
  return result;
}
