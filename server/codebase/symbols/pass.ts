/**
 * One file, one read, one parse: symbols, imports and (optionally) Argus's static rules. Runs in the
 * main thread or in a worker (see pool.ts). It never throws: whatever goes wrong is recorded on the
 * file (status + note) and the pass moves on.
 */
import { isUtf8 } from "node:buffer";
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { makeContext, runArgusRulesDetailed } from "../analysis/rules/index.ts";
import type { FileTaint } from "../analysis/taint/index.ts";
import type { Finding } from "../analysis/types.ts";
import { grammarFor, parse, type Tree } from "../treesitter.ts";
import { extractSymbols } from "./extract.ts";
import { extractImports } from "./imports.ts";
import { regexOutline } from "./outline.ts";
import type { FileStatus, FileSymbols, SourceFile } from "./types.ts";

export interface PassOptions {
  /** Snapshot root (absolute). */
  root: string;
  /** Files above this are counted but not parsed or scanned (a 10 MB minified bundle is not code a
   * reviewer reads, and parsing it costs seconds). Default 2 MiB. */
  maxParseBytes?: number;
  /** Wall-clock budget of one parse. Default 10 s. */
  parseTimeoutMs?: number;
  /** Files with a longer line count as minified/generated: scanned as text, not parsed. Default 10,000. */
  maxLineLength?: number;
  /** Run Argus's static rules on the same parse. Default true. */
  rules?: boolean;
  /** Outline files without a grammar with regexes here (false when ctags does it elsewhere). */
  regexOutline?: boolean;
  /** Run the taint engine with the rules (JS/TS, Python). Default true; false is the old rules only. */
  taint?: boolean;
  /** Wall-clock budget of one file's taint analysis (default DEFAULT_TAINT_BUDGET_MS, 3 s). */
  taintBudgetMs?: number;
}

export interface PassResult {
  file: FileSymbols;
  findings: Finding[];
  /** What the cross-file taint link needs from this file. */
  taint?: FileTaint;
  /** The taint engine analysed the whole file (merge.ts lets it decide data-flow questions there). */
  taintComplete?: boolean;
}

export const DEFAULT_MAX_PARSE_BYTES = 2 * 1024 * 1024;
export const DEFAULT_MAX_LINE_LENGTH = 10_000;

const BINARY_SNIFF = 8000;

/** A file to pass; `checkedSize` is set by a caller that already verified it is a regular file
 * inside the root (buildSymbolIndex does, for all files at once), sparing a second lstat/realpath. */
export type PassInput = SourceFile & { checkedSize?: number };

/** A file's record before (or without) a pass: nothing counted, nothing found. */
export function emptyFileSymbols(source: SourceFile, status: FileStatus, note: string | null): FileSymbols {
  return {
    path: source.path,
    language: source.language,
    status,
    note,
    lines: 0,
    bytes: 0,
    parseErrors: false,
    definitions: [],
    references: [],
    imports: [],
  };
}

export async function runFilePass(input: PassInput, options: PassOptions): Promise<PassResult> {
  const file = emptyFileSymbols(input, "parsed", null);
  const findings: Finding[] = [];
  const maxBytes = options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES;
  const maxLine = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  const grammar = grammarFor(input.language);
  let tree: Tree | null = null;
  try {
    const abs = path.resolve(options.root, input.path);
    // The path comes from a list: it must still name something inside the snapshot.
    if (path.isAbsolute(input.path) || !abs.startsWith(path.resolve(options.root) + path.sep))
      return skip(file, "error", "path is outside the snapshot");
    // Synchronous fs on purpose: the pass is CPU-bound and each await on the thread pool left the
    // thread idle between files (measured: ~0.3 s of 1.9 s on 390 files).
    let size = input.checkedSize;
    if (size === undefined) {
      const info = lstatSync(abs);
      if (!info.isFile())
        return skip(file, "skipped", info.isSymbolicLink() ? "symbolic link: not followed" : "not a regular file");
      // A symlinked directory on the way could still lead out of the snapshot.
      if (!realpathSync(abs).startsWith(realRoot(options.root) + path.sep))
        return skip(file, "error", "path resolves outside the snapshot");
      size = info.size;
    }
    file.bytes = size;
    if (size > maxBytes) {
      // Count lines without decoding or scanning: cheap even for a 10 MB single line.
      if (size <= 64 * maxBytes) file.lines = lineShape(readFileSync(abs)).lines;
      return skip(file, "skipped", `larger than ${formatBytes(maxBytes)}: not parsed or scanned`);
    }
    const buffer = readFileSync(abs);
    file.bytes = buffer.length;
    if (buffer.subarray(0, BINARY_SNIFF).includes(0)) return skip(file, "skipped", "binary content");
    const valid = isUtf8(buffer);
    // Invalid bytes become U+FFFD: parsing and scanning still work on the rest.
    const source = buffer.toString("utf8");
    const shape = lineShape(buffer);
    file.lines = shape.lines;
    if (!valid) file.note = "invalid UTF-8 replaced";
    // Minified or generated code: parsing one giant line is slow (seconds per MB) and yields nothing a
    // reviewer navigates by. It is still scanned by the text rules (a bundle can leak a key).
    const minified = shape.longest > maxLine;

    if (minified) {
      file.status = "skipped";
      file.note = `minified or generated: a line is longer than ${maxLine} bytes; not parsed`;
    } else if (grammar) {
      const outcome = await parse(grammar, source, options.parseTimeoutMs);
      tree = outcome.tree;
      const unread = !tree
        ? (outcome.refused ?? (outcome.timedOut ? "parse timed out" : "parser returned no tree"))
        : tree.rootNode.type === "ERROR" && tree.rootNode.childCount === 0 && source.trim()
          ? "the parser could not read any of this file: not parsed"
          : null;
      if (unread || !tree) {
        skip(file, "skipped", unread ?? "parser returned no tree");
        // Not parsed, still scanned as text (a key in a file the parser cannot read is still a key).
        if (options.rules !== false)
          findings.push(
            ...(await runArgusRulesDetailed(makeContext(input.path, input.language, null, source, null))).findings,
          );
        return { file, findings };
      }
      file.parseErrors = tree.rootNode.hasError;
      const symbols = await extractSymbols(grammar, tree.rootNode, source);
      file.definitions = symbols.definitions;
      file.references = symbols.references;
      file.imports = await extractImports(grammar, tree.rootNode, source);
      for (const imp of file.imports)
        for (const name of imp.names)
          if (name !== "*" && name !== "default")
            file.references.push({ name, kind: "import", line: imp.line, column: 1 });
    } else {
      file.status = "outline";
      if (options.regexOutline) file.definitions = regexOutline(source);
    }
    if (options.rules !== false) {
      const rules = await runArgusRulesDetailed(
        makeContext(input.path, input.language, tree ? grammar : null, source, tree),
        { taint: options.taint, taintBudgetMs: options.taintBudgetMs },
      );
      findings.push(...rules.findings);
      if (rules.note) file.note = `${file.note ? `${file.note}; ` : ""}${rules.note}`.slice(0, 500);
      const complete = rules.taintComplete ? { taintComplete: true } : {};
      if (rules.taint && (rules.taint.exports.length || rules.taint.calls.length))
        return { file, findings, taint: rules.taint, ...complete };
      return { file, findings, ...complete };
    }
    return { file, findings };
  } catch (err) {
    // Keep what was extracted before the failure (e.g. symbols when a rule threw).
    file.status = file.definitions.length ? file.status : "error";
    file.note = `${file.note ? `${file.note}; ` : ""}${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
    return { file, findings };
  } finally {
    tree?.delete();
  }

  function skip(f: FileSymbols, status: FileSymbols["status"], note: string): PassResult {
    f.status = status;
    f.note = note;
    return { file: f, findings };
  }
}

const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (!real) {
    real = realpathSync(root);
    realRoots.set(root, real);
  }
  return real;
}

/** Line count and longest line (in bytes), in one native-speed scan for newlines. */
function lineShape(buffer: Buffer): { lines: number; longest: number } {
  if (buffer.length === 0) return { lines: 0, longest: 0 };
  let lines = 0;
  let longest = 0;
  let start = 0;
  for (let i = buffer.indexOf(10); i >= 0; i = buffer.indexOf(10, i + 1)) {
    lines++;
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  longest = Math.max(longest, buffer.length - start);
  return { lines: buffer[buffer.length - 1] === 10 ? lines : lines + 1, longest };
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MiB` : `${Math.round(n / 1024)} KiB`;
}
