/**
 * Runs Argus's rules over the suites the way an import does (the symbol index pass, then the
 * cross-file taint link), with the taint engine on or off (off = the heuristics it replaced, the
 * baseline), and scores the findings.
 */
import path from "node:path";
import { buildSymbolIndex } from "../../../symbols/build.ts";
import type { SourceFile } from "../../../symbols/types.ts";
import type { Finding } from "../../types.ts";
import { loadSuites, materialize, type SuiteCase } from "./load.ts";
import { scoreSuite, type SuiteScore } from "./score.ts";

export interface SuiteRun {
  findings: Finding[];
  /** Files the taint engine analysed to the end (what the pre-pass's merge needs). */
  taintComplete: string[];
  scores: { javascript: SuiteScore; python: SuiteScore };
  durationMs: number;
}

/** The import's symbol pass over files under `root` (one thread, no ctags), with or without taint. */
export function importPass(root: string, files: SourceFile[], taint: boolean) {
  return buildSymbolIndex({
    root,
    files,
    indexPath: path.join(root, ".index.sqlite"),
    workers: 0,
    ctags: false,
    taint,
  });
}

export async function runSuites(options: { taint: boolean; cases?: SuiteCase[] }): Promise<SuiteRun> {
  const cases = options.cases ?? loadSuites();
  const { root, files, cleanup } = materialize(cases);
  try {
    const started = performance.now();
    const built = await importPass(root, files, options.taint);
    const durationMs = Math.round(performance.now() - started);
    const findings = built.findings;
    return {
      findings,
      taintComplete: built.taintComplete,
      scores: { javascript: scoreSuite("javascript", cases, findings), python: scoreSuite("python", cases, findings) },
      durationMs,
    };
  } finally {
    cleanup();
  }
}
