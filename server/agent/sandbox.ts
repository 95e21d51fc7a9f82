/**
 * Sandbox(root): the only way review tools (and, later, the project page) reach a snapshot's files.
 *
 * Every path comes from the model or a user, so it is hostile until proven otherwise:
 * 1. lexical check (normalise): relative posix paths only. Absolute paths, drive letters, UNC and
 *    backslash paths, `~`, URLs, `..` segments, NUL and control characters, URL-encoded separators or
 *    dots (`%2e%2e%2f`) are refused with a sentence saying what to send instead. Nothing is touched
 *    on disk for a refused path.
 * 2. ignore rules: the same matcher the ingest and the walker use (server/codebase/filters.ts), so what
 *    the agent can open is exactly what was indexed. An ignored path reads as "ignored", never its
 *    content (.env, node_modules/…).
 * 3. disk check: every component is lstat-ed from the root down; a symbolic link anywhere is refused
 *    (the walker never follows links either; the message names the target when it is inside the
 *    snapshot), then realpath must equal the lexical path inside the (real) root. Files are opened
 *    with O_NOFOLLOW | O_NONBLOCK and, where /proc exists, the opened descriptor's real path is checked
 *    again, so a swap between check and open cannot read outside.
 * 4. reads are capped (a truncation flag the tools turn into a note); binary files (a NUL byte in the
 *    first 8 KB, the walker's rule) are refused.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import { createIgnoreMatcher, type IgnoreMatcher, type IgnoreVerdict } from "../codebase/filters.ts";
import { isBinary } from "../codebase/languages.ts";

/** Longest path accepted from the model (bytes); segments are capped at 255 like every filesystem. */
export const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
/** Default cap of one read: past it the content is cut and `truncated` is set. */
export const DEFAULT_MAX_READ_BYTES = 2 * 1024 * 1024;
/** Entries one listDir returns at most (a directory with 100k files must not flood the model). */
export const MAX_DIR_ENTRIES = 5000;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const SNIFF_BYTES = 8192;

export type SandboxErrorCode =
  | "invalid_path"
  | "outside_root"
  | "ignored"
  | "not_found"
  | "symlink"
  | "not_a_file"
  | "not_a_directory"
  | "binary"
  | "unreadable";

/** A refused or failed path: the message is written for the model (what was wrong, what to do). */
export class SandboxError extends Error {
  constructor(
    public readonly code: SandboxErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "SandboxError";
  }
}

export interface ResolvedPath {
  /** Posix path relative to the root; "" is the root itself. */
  rel: string;
  abs: string;
  kind: "file" | "dir";
  size: number;
}

export interface ReadResult {
  path: string;
  /** UTF-8, decoded lossily (invalid bytes become U+FFFD; line breaks stay where they were). */
  content: string;
  /** File size on disk. */
  size: number;
  /** The file is longer than the cap: content holds its first maxBytes bytes. */
  truncated: boolean;
}

export interface DirEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
  /** Files only. */
  size?: number;
}

export interface DirListing {
  path: string;
  /** Sorted by name; ignored entries are left out. */
  entries: DirEntry[];
  /** How many entries the ignore rules hid, and the first few of their names. */
  ignoredCount: number;
  ignoredSample: string[];
  /** More than MAX_DIR_ENTRIES visible entries: the rest are left out. */
  truncated: boolean;
}

const show = (raw: string) => JSON.stringify(raw.length > 120 ? `${raw.slice(0, 117)}...` : raw);
const refuse = (code: SandboxErrorCode, message: string) => new SandboxError(code, message);
const RELATIVE_HINT =
  'Paths are relative to the project root, with forward slashes: e.g. "src/app.ts", or "." for the root.';

/** What a rule verdict says, for "why can't I open this?". */
function describeVerdict(v: IgnoreVerdict): string {
  const rule = v.pattern ? `rule "${v.pattern}"` : "a rule";
  const where = v.source === "default" ? "Argus's default ignores" : v.source ? v.source : "the ignore rules";
  return `${v.via ? `its folder ${v.via} matches ` : "it matches "}${rule} in ${where}`;
}

function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root + path.sep);
}

/** The real path of an open descriptor, where the OS tells (Linux /proc); undefined elsewhere. */
function descriptorPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

export class Sandbox {
  /** The real (symlink-free) absolute path of the snapshot root. */
  readonly root: string;
  readonly matcher: IgnoreMatcher;

  /** Throws a plain Error when root is not an existing directory: that is a server bug, not model input. */
  constructor(root: string, options: { matcher?: IgnoreMatcher } = {}) {
    const real = realpathSync(path.resolve(root));
    if (!lstatSync(real).isDirectory()) throw new Error(`Sandbox root ${real} is not a directory`);
    this.root = real;
    this.matcher = options.matcher ?? createIgnoreMatcher({ root: real });
  }

  /**
   * Lexical validation only: returns the clean relative posix path ("" for the root) or throws
   * invalid_path. Never touches the disk, so it also serves paths that no longer exist (git diffs).
   */
  normalise(raw: string): string {
    if (typeof raw !== "string") throw refuse("invalid_path", `A path must be a string. ${RELATIVE_HINT}`);
    if (raw.includes("\0"))
      throw refuse(
        "invalid_path",
        `The path ${show(raw.replace(/\0/g, "\\0"))} contains a NUL byte; refused. ${RELATIVE_HINT}`,
      );
    const p = raw.trim();
    if (/[\x01-\x1f\x7f]/.test(p))
      throw refuse("invalid_path", `The path ${show(p)} contains control characters; refused. ${RELATIVE_HINT}`);
    if (Buffer.byteLength(p) > MAX_PATH_BYTES)
      throw refuse(
        "invalid_path",
        `The path is longer than ${MAX_PATH_BYTES} bytes; no file in the project has such a path.`,
      );
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p))
      throw refuse("invalid_path", `${show(p)} is a URL, not a file in the project. ${RELATIVE_HINT}`);
    if (/^[A-Za-z]:/.test(p) || p.startsWith("\\\\") || p.startsWith("//")) {
      throw refuse(
        "outside_root",
        `${show(p)} is an absolute (Windows or network) path; only files inside the project can be read. ${RELATIVE_HINT}`,
      );
    }
    if (p.includes("\\"))
      throw refuse(
        "invalid_path",
        `${show(p)} uses backslashes; write paths with forward slashes (e.g. ${show(p.replace(/\\/g, "/"))}), relative to the project root.`,
      );
    if (p.startsWith("~"))
      throw refuse(
        "outside_root",
        `${show(p)} points into a home directory; "~" is not expanded and only files inside the project can be read. ${RELATIVE_HINT}`,
      );
    if (p.startsWith("/"))
      throw refuse(
        "outside_root",
        `${show(p)} is an absolute path; only files inside the project can be read. ${RELATIVE_HINT}`,
      );
    // %2e %2f %5c %00 %7e and double encoding (%25…): a path that only means something after decoding.
    if (/%(2e|2f|5c|00|7e|25)/i.test(p)) {
      throw refuse(
        "invalid_path",
        `${show(p)} looks URL-encoded; paths are not decoded. Give the plain path as it appears in list_dir. ${RELATIVE_HINT}`,
      );
    }
    const parts: string[] = [];
    for (const part of p.split("/")) {
      if (part === "" || part === ".") continue;
      if (part === "..")
        throw refuse(
          "outside_root",
          `${show(p)} climbs with ".."; refused. Name the file by its full path from the project root instead.`,
        );
      if (Buffer.byteLength(part) > MAX_SEGMENT_BYTES)
        throw refuse(
          "invalid_path",
          `A name in ${show(p)} is longer than 255 bytes; no file in the project has such a name.`,
        );
      parts.push(part);
    }
    return parts.join("/");
  }

  /** Whether a clean relative path is hidden by the ignore rules (and why). */
  explainIgnored(rel: string, isDir = false): IgnoreVerdict {
    if (rel === "") return { ignored: false };
    return this.matcher.explain(rel, isDir);
  }

  /** Throws the "ignored" refusal when a clean relative path is excluded (for paths that may not exist on disk, e.g. in git history). */
  checkNotIgnored(rel: string): void {
    // Without the disk to say file or folder, "excluded as either" wins: fail closed.
    for (const isDir of [false, true]) {
      const v = this.explainIgnored(rel, isDir);
      if (v.ignored) throw this.ignoredError(rel, v);
    }
  }

  private ignoredError(rel: string, v: IgnoreVerdict): SandboxError {
    return refuse(
      "ignored",
      `"${rel}" is excluded from the review (${describeVerdict(v)}), so it is not part of the snapshot and cannot be read. Vendored code, build output, lockfiles, binaries and secrets (.env) are always excluded.`,
    );
  }

  /**
   * Full check: lexical, ignore rules, every component on disk (no symlinks, no escapes), the expected
   * kind. Throws SandboxError; returns only paths that are safe to open.
   */
  resolve(raw: string, expect: "file" | "dir" | "any" = "any"): ResolvedPath {
    const rel = this.normalise(raw);
    // Ancestors and the path as a file are checked before touching the disk, so an ignored file's
    // existence is not revealed by a different message.
    const pre = this.explainIgnored(rel, false);
    if (pre.ignored) throw this.ignoredError(rel, pre);

    const parts = rel === "" ? [] : rel.split("/");
    let abs = this.root;
    let st: Stats = lstatSync(abs);
    for (let i = 0; i < parts.length; i++) {
      const soFar = parts.slice(0, i + 1).join("/");
      abs = path.join(abs, parts[i]!);
      try {
        st = lstatSync(abs);
      } catch {
        const parent = parts.slice(0, i).join("/") || ".";
        throw refuse(
          "not_found",
          `There is no "${soFar}" in the project${i === parts.length - 1 ? "" : ` (so "${rel}" does not exist either)`}. Use list_dir on "${parent}" to see what is there, or grep / find_definition to locate it.`,
        );
      }
      if (st.isSymbolicLink()) throw this.symlinkError(soFar, abs);
      if (i < parts.length - 1 && !st.isDirectory()) {
        throw refuse("not_found", `"${soFar}" is a file, not a folder, so "${rel}" does not exist.`);
      }
    }
    const kind = st.isDirectory() ? "dir" : st.isFile() ? "file" : undefined;
    if (!kind)
      throw refuse(
        "not_a_file",
        `"${rel}" is not a regular file or folder (a device, socket or pipe); it cannot be read.`,
      );
    if (kind === "dir") {
      const v = this.explainIgnored(rel, true);
      if (v.ignored) throw this.ignoredError(rel, v);
    }
    // Belt and braces: the components were checked one by one; the real path must agree.
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw refuse("not_found", `"${rel}" disappeared while it was being opened; try again.`);
    }
    if (real !== abs || !isInside(this.root, real))
      throw refuse("outside_root", `"${rel}" resolves outside the project; refused.`);
    if (expect === "file" && kind !== "file")
      throw refuse("not_a_file", `"${rel || "."}" is a folder, not a file. Use list_dir to see its contents.`);
    if (expect === "dir" && kind !== "dir")
      throw refuse("not_a_directory", `"${rel}" is a file, not a folder. Use read_file to read it.`);
    return { rel, abs, kind, size: kind === "file" ? st.size : 0 };
  }

  private symlinkError(rel: string, abs: string): SandboxError {
    let target: string | undefined;
    try {
      const real = realpathSync(abs);
      if (isInside(this.root, real)) target = path.relative(this.root, real).split(path.sep).join("/");
    } catch {
      // dangling: no target to suggest
    }
    const hint =
      target !== undefined && !this.explainIgnored(target).ignored
        ? ` It points to "${target || "."}" inside the project: open that path instead.`
        : " It points outside the project (or nowhere); refused.";
    return refuse("symlink", `"${rel}" is a symbolic link; the snapshot's links are not followed.${hint}`);
  }

  /** Reads a text file (up to maxBytes). Binary files are refused. */
  readFile(raw: string, options: { maxBytes?: number } = {}): ReadResult {
    const { content, size, truncated, rel } = this.readBytes(raw, options.maxBytes ?? DEFAULT_MAX_READ_BYTES);
    return { path: rel, content: content.toString("utf8"), size, truncated };
  }

  /** The raw bytes of a text file (up to maxBytes); binary files are refused. */
  readBytes(
    raw: string,
    maxBytes = DEFAULT_MAX_READ_BYTES,
  ): { rel: string; content: Buffer; size: number; truncated: boolean } {
    const r = this.resolve(raw, "file");
    let fd: number;
    try {
      fd = openSync(r.abs, OPEN_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw this.symlinkError(r.rel, r.abs);
      throw refuse("unreadable", `"${r.rel}" could not be opened (${code ?? "error"}).`);
    }
    try {
      const opened = descriptorPath(fd);
      if (opened !== undefined && !isInside(this.root, opened))
        throw refuse("outside_root", `"${r.rel}" resolves outside the project; refused.`);
      const st = fstatSync(fd);
      if (!st.isFile()) throw refuse("not_a_file", `"${r.rel}" is not a regular file.`);
      const want = Math.min(st.size, Math.max(0, maxBytes));
      // Sniff first: a binary file is refused without reading more of it.
      const head = readAt(fd, Math.min(st.size, SNIFF_BYTES), 0);
      if (isBinary(head)) {
        throw refuse(
          "binary",
          `"${r.rel}" is a binary file (${st.size.toLocaleString("en-US")} bytes); it cannot be shown as text.`,
        );
      }
      const content =
        want <= head.length
          ? head.subarray(0, want)
          : Buffer.concat([head, readAt(fd, want - head.length, head.length)]);
      return { rel: r.rel, content, size: st.size, truncated: st.size > content.length };
    } finally {
      closeSync(fd);
    }
  }

  /** The visible entries of a folder, sorted; ignored ones are counted, not shown. */
  listDir(raw: string): DirListing {
    const r = this.resolve(raw, "dir");
    let names: string[];
    try {
      names = readdirSync(r.abs).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    } catch (err) {
      throw refuse(
        "unreadable",
        `"${r.rel || "."}" could not be listed (${(err as NodeJS.ErrnoException).code ?? "error"}).`,
      );
    }
    const listing: DirListing = { path: r.rel, entries: [], ignoredCount: 0, ignoredSample: [], truncated: false };
    for (const name of names) {
      const rel = r.rel ? `${r.rel}/${name}` : name;
      let st: Stats;
      try {
        st = lstatSync(path.join(r.abs, name));
      } catch {
        continue; // vanished
      }
      const isDir = st.isDirectory();
      if (this.matcher.ignores(rel, isDir)) {
        listing.ignoredCount++;
        if (listing.ignoredSample.length < 10) listing.ignoredSample.push(isDir ? `${name}/` : name);
        continue;
      }
      if (listing.entries.length >= MAX_DIR_ENTRIES) {
        listing.truncated = true;
        continue;
      }
      if (isDir) listing.entries.push({ name, kind: "dir" });
      else if (st.isFile()) listing.entries.push({ name, kind: "file", size: st.size });
      else if (st.isSymbolicLink()) listing.entries.push({ name, kind: "symlink" });
      else listing.entries.push({ name, kind: "other" });
    }
    return listing;
  }
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const n = readSync(fd, buf, filled, length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}
