/**
 * Builds a snapshot's symbol index: one pass per file (symbols, imports and Argus's rules on a single
 * parse) spread over the main thread and worker threads, a ctags outline for files without a grammar
 * running beside it, then module resolution and the SQLite index written into place.
 */
import { lstat, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Finding } from "../analysis/types.ts";
import { linkTaint, type LinkInput } from "../analysis/taint/link.ts";
import { grammarFor } from "../treesitter.ts";
import { IndexWriter } from "./index-writer.ts";
import { collectModuleConfig } from "./modules/config.ts";
import { ModuleResolver } from "./modules/resolve.ts";
import { ctagsOutline, findCtags, regexOutlineFile } from "./outline.ts";
import { DEFAULT_MAX_PARSE_BYTES, type PassInput, type PassResult } from "./pass.ts";
import { runPool } from "./pool.ts";
import type { Definition, ImportRef, SourceFile } from "./types.ts";

export interface BuildOptions {
  /** Snapshot root (absolute). */
  root: string;
  files: SourceFile[];
  /** Where the index goes (e.g. <snapshot index dir>/symbols.sqlite); replaced atomically. */
  indexPath: string;
  /** Worker threads besides the main thread; "auto" = cores − 1 when the tree is big enough. */
  workers?: number | "auto";
  /** Let the main thread process files too (default true); false keeps the event loop free. */
  mainThread?: boolean;
  /** Run Argus's static rules in the same pass (default true). */
  rules?: boolean;
  /** The taint engine with the rules (default true); false runs the old rules only. */
  taint?: boolean;
  /** Per-file budget of the taint analysis (ms); a file over it ends its analysis with a note. */
  taintBudgetMs?: number;
  maxParseBytes?: number;
  parseTimeoutMs?: number;
  /** Use universal-ctags for files without a grammar when it is on PATH (default true). */
  ctags?: boolean;
  onProgress?: (progress: { done: number; total: number; path: string }) => void;
  signal?: AbortSignal;
}

export interface BuildResult {
  indexPath: string;
  files: number;
  lines: number;
  bytes: number;
  byStatus: Record<string, number>;
  definitions: number;
  references: number;
  imports: number;
  resolvedImports: number;
  /** Argus's rule findings (empty when rules: false). */
  findings: Finding[];
  /** Files the taint engine analysed to the end (no note): runStaticAnalysis's taintComplete. */
  taintComplete: string[];
  /** Files whose analysis ended early or partly, with why (the note also on the file's index record). */
  analysisNotes: { path: string; note: string }[];
  outline: "ctags" | "regex";
  /** Why ctags was not used / failed, if it was wanted. */
  outlineNote: string | null;
  workers: { requested: number; started: number; failed: string[]; filesInWorkers: number };
  durationMs: number;
}

/** Below this much source, worker start-up (~0.4 s each, then cold wasm) costs more than it saves:
 * measured (bench/ingest.ts) no gain at 4 MiB / 118k lines, 1.6× faster at ~8 MiB / 235k lines. */
const WORKER_THRESHOLD_BYTES = 6 * 1024 * 1024;

export async function buildSymbolIndex(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const root = path.resolve(options.root);
  const maxParseBytes = options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES;

  // Sizes order the queue (largest first balances threads) and decide whether workers pay. Only
  // regular files that really are inside the snapshot may go to ctags (the pass checks its own).
  const sizes = new Map<string, number>();
  const insideRoot = new Set<string>();
  const realRoot = await realpath(root);
  await Promise.all(
    options.files.map(async (f) => {
      sizes.set(f.path, 0);
      if (path.isAbsolute(f.path) || f.path.split("/").includes("..")) return;
      try {
        const abs = path.join(root, f.path);
        const info = await lstat(abs);
        sizes.set(f.path, info.size);
        if (info.isFile() && (await realpath(abs)).startsWith(realRoot + path.sep)) insideRoot.add(f.path);
      } catch {
        // missing: the pass records it
      }
    }),
  );
  const totalBytes = [...sizes.values()].reduce((a, b) => a + Math.min(b, maxParseBytes), 0);
  const ordered: PassInput[] = [...options.files]
    .sort((a, b) => (sizes.get(b.path) ?? 0) - (sizes.get(a.path) ?? 0))
    .map((f) => (insideRoot.has(f.path) ? { ...f, checkedSize: sizes.get(f.path)! } : f));
  const workers =
    options.workers === "auto" || options.workers === undefined
      ? totalBytes >= WORKER_THRESHOLD_BYTES
        ? Math.max(0, Math.min(3, os.availableParallelism() - 1))
        : 0
      : Math.max(0, options.workers);

  const outlineFiles = options.files
    .filter((f) => !grammarFor(f.language) && insideRoot.has(f.path) && (sizes.get(f.path) ?? 0) <= maxParseBytes)
    .map((f) => f.path);
  const ctags = options.ctags === false || outlineFiles.length === 0 ? null : await findCtags();
  let outlineNote: string | null =
    options.ctags !== false && outlineFiles.length > 0 && !ctags
      ? "universal-ctags (with JSON output) is not on PATH: regex outline used"
      : null;
  const ctagsRun: Promise<Map<string, Definition[]> | null> = ctags
    ? ctagsOutline(ctags, root, outlineFiles).catch((err: unknown) => {
        outlineNote = `ctags failed (${err instanceof Error ? err.message : String(err)}): regex outline used`;
        return null;
      })
    : Promise.resolve(null);

  const writer = new IndexWriter(options.indexPath);
  try {
    const findings: Finding[] = [];
    const imports: { path: string; imports: ImportRef[] }[] = [];
    const byStatus: Record<string, number> = {};
    let lines = 0;
    let bytes = 0;
    let definitions = 0;
    let references = 0;
    let done = 0;
    const taint: LinkInput[] = [];
    const taintComplete: string[] = [];
    const analysisNotes: { path: string; note: string }[] = [];
    const onResult = ({ file, findings: found, taint: fileTaint, taintComplete: complete }: PassResult) => {
      writer.addFile(file);
      findings.push(...found);
      if (complete) taintComplete.push(file.path);
      if (
        file.note &&
        (file.status === "error" || /taint analysis|parse timed out|could not read|indentation nested/.test(file.note))
      )
        analysisNotes.push({ path: file.path, note: file.note });
      if (fileTaint) taint.push({ path: file.path, taint: fileTaint });
      if (file.imports.length) imports.push({ path: file.path, imports: file.imports });
      byStatus[file.status] = (byStatus[file.status] ?? 0) + 1;
      lines += file.lines;
      bytes += file.bytes;
      definitions += file.definitions.length;
      references += file.references.length;
      options.onProgress?.({ done: ++done, total: ordered.length, path: file.path });
    };
    const pool = await runPool(ordered, sizes, {
      workers,
      mainThread: options.mainThread,
      signal: options.signal,
      onResult,
      // Regex outlines are made in the pass only when ctags will not make them.
      pass: {
        root,
        maxParseBytes,
        parseTimeoutMs: options.parseTimeoutMs,
        rules: options.rules !== false,
        taint: options.taint !== false,
        ...(options.taintBudgetMs !== undefined ? { taintBudgetMs: options.taintBudgetMs } : {}),
        regexOutline: !ctags,
      },
    });

    const outline = await ctagsRun;
    if (outline) {
      for (const [file, defs] of outline) {
        writer.addOutline(file, defs);
        definitions += defs.length;
      }
    } else if (ctags) {
      // ctags failed after the pass skipped its regex outlines: make them now.
      for (const file of outlineFiles) {
        const defs = await regexOutlineFile(root, file);
        writer.addOutline(file, defs);
        definitions += defs.length;
      }
    }

    const moduleConfig = await collectModuleConfig(
      root,
      options.files.map((f) => f.path),
    );
    const resolver = new ModuleResolver(
      moduleConfig,
      options.files.map((f) => f.path),
    );
    let importCount = 0;
    let resolvedImports = 0;
    for (const entry of imports) {
      for (const imp of entry.imports) {
        const target = resolvePythonFrom(resolver, imp, entry.path) ?? resolver.resolve(imp.specifier, entry.path);
        writer.addImport(entry.path, imp, target);
        importCount++;
        if (target.kind === "file" || target.kind === "package") resolvedImports++;
      }
    }

    // Calls into other files' functions with untrusted arguments (needs every file and the resolver).
    const known = new Set(findings.map((f) => `${f.file}:${f.startLine}:${f.ruleId}`));
    for (const f of linkTaint(taint, (spec, name, from) => {
      const sub =
        from.endsWith(".py") && !spec.includes("#")
          ? resolver.resolve(`${spec}${spec.endsWith(".") ? "" : "."}${name}`, from)
          : null;
      if (sub?.kind === "file" && sub.path) return sub.path;
      const target = resolver.resolve(spec, from);
      return target.kind === "file" ? target.path : null;
    }))
      if (!known.has(`${f.file}:${f.startLine}:${f.ruleId}`)) findings.push(f);

    const durationMs = Math.round(performance.now() - started);
    writer.finish({
      created_at: new Date().toISOString(),
      module_config: moduleConfig,
      outline: ctags && outline ? "ctags" : "regex",
      totals: { files: ordered.length, lines, bytes, definitions, references, imports: importCount },
      duration_ms: durationMs,
    });
    return {
      indexPath: options.indexPath,
      files: ordered.length,
      lines,
      bytes,
      byStatus,
      definitions,
      references,
      imports: importCount,
      resolvedImports,
      findings,
      taintComplete,
      analysisNotes,
      outline: ctags && outline ? "ctags" : "regex",
      outlineNote,
      workers: {
        requested: workers,
        started: pool.workersStarted,
        failed: pool.workersFailed,
        filesInWorkers: pool.filesInWorkers,
      },
      durationMs,
    };
  } catch (err) {
    writer.abort();
    throw err;
  }
}

/**
 * `from . import views` / `from pkg import sub`: when the named thing is a submodule, the import
 * points at that file rather than the package's __init__.
 */
function resolvePythonFrom(resolver: ModuleResolver, imp: ImportRef, from: string) {
  if (!from.endsWith(".py") || imp.names.length !== 1 || imp.names[0] === "*") return null;
  const sep = imp.specifier.endsWith(".") ? "" : ".";
  const sub = resolver.resolve(`${imp.specifier}${sep}${imp.names[0]}`, from);
  return sub.kind === "file" ? sub : null;
}
