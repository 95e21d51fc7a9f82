/**
 * Builds a snapshot's symbol index: one pass per file (symbols, imports and Argus's rules on a single
 * parse) spread over the main thread and worker threads, a ctags outline for files without a grammar
 * running beside it, then module resolution and the SQLite index written into place.
 *
 * This file runs the pass and keeps its totals; beside it: build-plan.ts (sizes, order, threads),
 * build-outline.ts (ctags beside the pass), build-links.ts (imports resolved, taint across files).
 */
import path from "node:path";
import type { Finding } from "../analysis/types.ts";
import type { LinkInput } from "../analysis/taint/link.ts";
import { crossFileFindings, resolveImports } from "./build-links.ts";
import { startOutline, writeOutline } from "./build-outline.ts";
import { planBuild } from "./build-plan.ts";
import { IndexWriter } from "./index-writer.ts";
import { DEFAULT_MAX_PARSE_BYTES, type PassResult } from "./pass.ts";
import { runPool } from "./pool.ts";
import type { ImportRef } from "./types.ts";
import type { BuildOptions } from "./build-options.ts";

export type { BuildOptions };

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

export async function buildSymbolIndex(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const root = path.resolve(options.root);
  const maxParseBytes = options.maxParseBytes ?? DEFAULT_MAX_PARSE_BYTES;
  const plan = await planBuild(options, root, maxParseBytes);
  const { sizes, ordered, workers } = plan;
  const outlineRun = await startOutline(options, root, plan, maxParseBytes);

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
        regexOutline: !outlineRun.ctags,
      },
    });

    const outline = await writeOutline(writer, root, outlineRun);
    definitions += outline.definitions;
    const resolved = await resolveImports(
      writer,
      root,
      options.files.map((f) => f.path),
      imports,
    );
    findings.push(...crossFileFindings(resolved.resolver, taint, findings));

    const durationMs = Math.round(performance.now() - started);
    writer.finish({
      created_at: new Date().toISOString(),
      module_config: resolved.moduleConfig,
      outline: outline.outline,
      totals: { files: ordered.length, lines, bytes, definitions, references, imports: resolved.imports },
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
      imports: resolved.imports,
      resolvedImports: resolved.resolved,
      findings,
      taintComplete,
      analysisNotes,
      outline: outline.outline,
      outlineNote: outline.note,
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
