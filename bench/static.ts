/**
 * The static engine's taint pass: precision / recall / F1 per weakness and language on Argus's own
 * suites (server/codebase/analysis/taint/suites — written here, not a public benchmark), file-level
 * TPR / FPR / precision per weakness, each next to the heuristics it replaced (the baseline, same
 * run), bandit's figures on the Python suite when bandit is on PATH (alone, and merged with Argus's
 * as the pre-pass does), and the cost of the
 * taint pass on a ≥100k-line TypeScript tree (the Anthropic SDK sources shipped in node_modules)
 * against the rules pass on the same parse trees.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { SourceFile } from "../server/codebase/symbols/types.ts";
import { parseBanditOutput } from "../server/codebase/analysis/external.ts";
import { mergeFindings } from "../server/codebase/analysis/merge.ts";
import type { Finding } from "../server/codebase/analysis/types.ts";
import { weaknessOf } from "../server/codebase/analysis/weakness.ts";
import { findExecutable } from "../server/codebase/analysis/which.ts";
import { makeContext, runArgusRulesDetailed } from "../server/codebase/analysis/rules/index.ts";
import { calibrate } from "../server/codebase/analysis/taint/suites/calibrate.ts";
import { loadSuites, materialize, type SuiteCase } from "../server/codebase/analysis/taint/suites/load.ts";
import { importPass, runSuites, type SuiteRun } from "../server/codebase/analysis/taint/suites/run.ts";
import {
  scoreSuite,
  weaknessOf as weaknessOfRule,
  type ScoredFinding,
} from "../server/codebase/analysis/taint/suites/score.ts";
import { parse } from "../server/codebase/treesitter.ts";

/**
 * bandit on the Python suite, two ways: alone (its findings mapped to weaknesses by the same table the
 * pre-pass merges with, server/codebase/analysis/weakness.ts), and what a user sees with bandit on
 * PATH — Argus's findings and bandit's through the pre-pass's merge (analysis/merge.ts).
 */
async function bandit(taint: SuiteRun): Promise<Record<string, unknown>> {
  const bin = findExecutable("bandit");
  if (!bin) {
    if ((process.env.ARGUS_EXTERNAL_TOOLS ?? "").split(",").includes("bandit"))
      throw new Error("bandit is required (ARGUS_EXTERNAL_TOOLS) but not on PATH");
    return { status: "skipped: bandit is not on PATH" };
  }
  const version = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.split("\n")[0]?.trim();
  const cases = loadSuites().filter((c) => c.language === "python");
  const { root, files, cleanup } = materialize(cases);
  try {
    const started = performance.now();
    const run = spawnSync(bin, ["-f", "json", "-q", ...files.map((f) => f.path)], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    const durationMs = Math.round(performance.now() - started);
    const raw = parseBanditOutput(root, run.stdout);
    const mapped = (fs: Finding[]): ScoredFinding[] =>
      fs.flatMap((f) => {
        const ruleId = f.tool === "argus" ? f.ruleId : weaknessOf(f).weakness;
        return ruleId ? [{ file: f.file, startLine: f.startLine, endLine: f.endLine, ruleId }] : [];
      });
    const alone = scoreSuite("python", cases, mapped(raw));
    const argusPython = taint.findings.filter((f) => f.file.endsWith(".py"));
    const merged = mergeFindings([...argusPython, ...raw], { taintComplete: new Set(taint.taintComplete) });
    const together = scoreSuite("python", cases, mapped(merged.findings));
    return {
      status: "ran",
      version,
      durationMs,
      findings: raw.length,
      alone: { byCase: alone.byCase, byLine: { ALL: alone.byLine.ALL } },
      mergedWithArgus: {
        note: "Argus's findings and bandit's through the pre-pass merge: what a user sees with bandit on PATH",
        findings: merged.findings.length,
        banditKept: merged.findings.filter((f) => f.tool === "bandit").length,
        banditMergedOrLeftOut: merged.counts.bandit ?? null,
        byCase: { ALL: together.byCase.ALL },
        byLine: { ALL: together.byLine.ALL },
      },
    };
  } finally {
    cleanup();
  }
}

const CALIBRATION_FILE = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  "../server/codebase/analysis/taint/calibration.ts",
);

/**
 * Each rule's confidence is its measured precision on the suites: the counts of this run go into
 * server/codebase/analysis/taint/calibration.ts (committed with the results; taint.test.ts checks the
 * file still matches the suites).
 */
async function writeCalibration(cases: SuiteCase[], taint: SuiteRun): Promise<Record<string, unknown>> {
  const table = calibrate(cases, taint.findings);
  const prettier = await import("prettier");
  const text = [
    "// Written by `npm run bench -- static` (bench/static.ts) from Argus's suites: do not edit by hand.",
    'import type { Calibration } from "./calibration-model.ts";',
    "",
    `export const CALIBRATION: Calibration = ${JSON.stringify(table)};`,
    "",
  ].join("\n");
  const options = (await prettier.resolveConfig(CALIBRATION_FILE)) ?? {};
  writeFileSync(CALIBRATION_FILE, await prettier.format(text, { ...options, filepath: CALIBRATION_FILE }));
  return table as unknown as Record<string, unknown>;
}

function sdkTree(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@anthropic-ai/sdk"));
  while (path.basename(dir) !== "sdk" || path.basename(path.dirname(dir)) !== "@anthropic-ai") dir = path.dirname(dir);
  return path.join(dir, "src");
}

function listTs(root: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listTs(root, child));
    else if (/\.(?:ts|js|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(child);
  }
  return out;
}

/** Rules pass vs rules + taint pass on the same parse trees (parse time excluded from both). */
export async function speed(): Promise<Record<string, unknown>> {
  const root = sdkTree();
  const files = listTs(root);
  let lines = 0;
  const trees: {
    f: string;
    source: string;
    grammar: "typescript" | "javascript";
    tree: Awaited<ReturnType<typeof parse>>["tree"];
  }[] = [];
  for (const f of files) {
    const source = readFileSync(path.join(root, f), "utf8");
    lines += source.split("\n").length;
    const grammar = f.endsWith(".ts") ? "typescript" : "javascript";
    const { tree } = await parse(grammar, source);
    trees.push({ f, source, grammar, tree } as const);
  }
  const pass = async (taint: boolean) => {
    let findings = 0;
    let notes = 0;
    // CPU time, not wall time: this machine is shared, and waiting for a core is not the pass's cost.
    const started = process.cpuUsage();
    for (const t of trees) {
      const r = await runArgusRulesDetailed(makeContext(t.f, t.grammar, t.grammar, t.source, t.tree), { taint });
      findings += r.findings.length;
      if (r.note) notes++;
    }
    const used = process.cpuUsage(started);
    return { ms: (used.user + used.system) / 1000, findings, notes };
  };
  await pass(false); // warm queries and JIT
  const rounds = [];
  for (let i = 0; i < 3; i++) rounds.push({ rules: await pass(false), taint: await pass(true) });
  for (const t of trees) t.tree?.delete();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rulesMs = median(rounds.map((r) => r.rules.ms));
  const withTaintMs = median(rounds.map((r) => r.taint.ms));
  return {
    tree: "@anthropic-ai/sdk/src",
    files: files.length,
    lines,
    clock: "CPU time of this process (median of 3 rounds, parse excluded)",
    rulesPassMs: Math.round(rulesMs),
    rulesWithTaintMs: Math.round(withTaintMs),
    taintOnlyMs: Math.round(withTaintMs - rulesMs),
    /** Target ≤ 2: the taint pass costs at most twice the rules pass it joins. */
    taintOverRules: Math.round(((withTaintMs - rulesMs) / rulesMs) * 100) / 100,
    findings: { rules: rounds[0]!.rules.findings, withTaint: rounds[0]!.taint.findings },
    filesWithNotes: rounds[0]!.taint.notes,
  };
}

/**
 * The import pass with taint on a 5,000-file project: the SDK's sources copied round-robin into 5,000
 * files (each copy in its own folder), walk excluded, wall time on this shared machine.
 */
async function fiveThousandFiles(): Promise<Record<string, unknown>> {
  const src = sdkTree();
  const sdkFiles = listTs(src);
  const root = mkdtempSync(path.join(os.tmpdir(), "argus-static-5000-"));
  try {
    const files: SourceFile[] = [];
    let lines = 0;
    for (let i = 0; i < 5000; i++) {
      const f = sdkFiles[i % sdkFiles.length]!;
      const rel = `copy${Math.floor(i / sdkFiles.length)}/${f}`;
      const text = readFileSync(path.join(src, f), "utf8");
      lines += text.split("\n").length;
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
      files.push({ path: rel, language: f.endsWith(".ts") ? "typescript" : "javascript" });
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    const built = await importPass(root, files, true);
    const used = process.cpuUsage(cpu);
    return {
      files: files.length,
      lines,
      // CPU time is the pass's cost; wall time on this shared machine includes waiting for a core.
      cpuSeconds: Math.round((used.user + used.system) / 1000) / 1000,
      wallSeconds: Math.round(performance.now() - started) / 1000,
      target: "≤ 30 s (symbol index + Argus's rules + taint, one thread)",
      findings: built.findings.length,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Cases, vulnerable ones found and safe look-alikes flagged (with the case's weakness) per suite file. */
function bySuite(cases: SuiteCase[], run: SuiteRun): Record<string, unknown> {
  const out: Record<string, { cases: number; vulnerable: number; found: number; safe: number; safeFlagged: number }> =
    {};
  for (const c of cases) {
    const k = `${c.language}/${c.suite}`;
    const row = (out[k] ??= { cases: 0, vulnerable: 0, found: 0, safe: 0, safeFlagged: 0 });
    const paths = new Set(c.files.map((f) => f.path));
    const flagged = run.findings.some((f) => paths.has(f.file) && weaknessOfRule(f.ruleId) === c.weakness);
    row.cases++;
    if (c.vulnerable) {
      row.vulnerable++;
      if (flagged) row.found++;
    } else {
      row.safe++;
      if (flagged) row.safeFlagged++;
    }
  }
  return out;
}

/** Per weakness: precision / recall / F1 by line and the share of its safe look-alikes flagged. */
function perKind(score: SuiteRun["scores"]["javascript"]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(score.byLine).map(([w, l]) => [
      w,
      {
        precision: l.precision,
        recall: l.recall,
        f1: l.f1,
        safeLookAlikesFlagged: score.byCase[w] ? score.byCase[w].fpr : null,
      },
    ]),
  );
}

/** The public benchmark's way: Youden's J (TPR − FPR) per category, averaged over the categories. */
function averagedYouden(byCase: Record<string, { j: number; vulnerable: number; safe: number }>): number {
  const cats = Object.entries(byCase).filter(([w, c]) => w !== "ALL" && c.vulnerable > 0 && c.safe > 0);
  return Math.round((cats.reduce((s, [, c]) => s + c.j, 0) / Math.max(1, cats.length)) * 1000) / 1000;
}

export default async function staticBench(): Promise<Record<string, unknown>> {
  const cases = loadSuites();
  const taint = await runSuites({ taint: true, cases });
  const baseline = await runSuites({ taint: false, cases });
  const suiteLines = cases.reduce((n, c) => n + c.files.reduce((m, f) => m + f.text.split("\n").length, 0), 0);
  const side = (lang: "javascript" | "python") => ({
    cases: taint.scores[lang].cases,
    byLine: Object.fromEntries(
      Object.keys({ ...taint.scores[lang].byLine, ...baseline.scores[lang].byLine }).map((w) => [
        w,
        { taint: taint.scores[lang].byLine[w] ?? null, baseline: baseline.scores[lang].byLine[w] ?? null },
      ]),
    ),
    byCase: Object.fromEntries(
      Object.keys(taint.scores[lang].byCase).map((w) => [
        w,
        { taint: taint.scores[lang].byCase[w], baseline: baseline.scores[lang].byCase[w] },
      ]),
    ),
    safeLookAlikesFlagged: { taint: taint.scores[lang].safeFlagged, baseline: baseline.scores[lang].safeFlagged },
  });
  const banditRun = await bandit(taint);
  const banditAlone = (banditRun.alone as { byCase?: Parameters<typeof averagedYouden>[0] } | undefined)?.byCase;
  const sdk = await speed();
  return {
    note: "suites are Argus's own (written alongside the engine, so these figures are an upper bound; the acceptance suites are held out)",
    summary: {
      javascript: {
        f1: taint.scores.javascript.byLine.ALL!.f1,
        safeLookAlikesFlagged: taint.scores.javascript.safeFlagged.share,
      },
      python: {
        f1: taint.scores.python.byLine.ALL!.f1,
        safeLookAlikesFlagged: taint.scores.python.safeFlagged.share,
        averagedYouden: averagedYouden(taint.scores.python.byCase),
        banditAveragedYouden: banditAlone ? averagedYouden(banditAlone) : null,
      },
      cpuMsPer1000Lines: {
        note: "on the SDK tree (118k lines of TypeScript), parse excluded",
        taintPass: Math.round(((sdk.taintOnlyMs as number) / (sdk.lines as number)) * 1000 * 10) / 10,
        rulesWithTaint: Math.round(((sdk.rulesWithTaintMs as number) / (sdk.lines as number)) * 1000 * 10) / 10,
      },
    },
    perKind: { javascript: perKind(taint.scores.javascript), python: perKind(taint.scores.python) },
    bySuite: bySuite(cases, taint),
    calibration: await writeCalibration(cases, taint),
    javascript: side("javascript"),
    python: side("python"),
    banditOnPythonSuite: banditRun,
    suiteRunMs: { taint: taint.durationMs, baseline: baseline.durationMs, suiteLines },
    speed: sdk,
    fiveThousandFiles: await fiveThousandFiles(),
  };
}
