/**
 * `argus ingest <folder|archive.zip|git-url> [--ref r] [--json] [--keep]`: imports the code exactly as
 * the web app does (same runImport), into a temporary snapshot, and prints its summary.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { getConfig } from "../config.ts";
import { DomainError } from "../errors.ts";
import { OPERATOR_GIT_POLICY } from "../codebase/ingest/index.ts";
import { runImport, type ImportSource } from "../snapshots/import.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { UsageError } from "./usage.ts";

export const INGEST_HELP = `Usage: argus ingest <folder | archive.zip | git-url> [--ref <branch|tag|commit>] [--json] [--keep]

Imports code the way the web app does (ignore rules, caps, symbol index, static rules) and prints
the snapshot summary: files, languages, symbols and static findings by severity.
  --json   one JSON object on stdout
  --keep   keep the snapshot directory (printed) instead of deleting it`;

/** A command-line target as an import source: a folder, a zip file or a git URL (else a usage error). */
export async function sourceFor(target: string, git: { ref?: string; depth?: number } = {}): Promise<ImportSource> {
  const info = await stat(target).catch(() => null);
  if (info?.isDirectory()) return { kind: "path", path: path.resolve(target) };
  if (info?.isFile()) return { kind: "zip", zipPath: path.resolve(target) };
  if (/^(https?|ssh|git):\/\/|^[\w.-]+@[\w.-]+:/.test(target)) return { kind: "git", url: target, ...git };
  throw new UsageError(`"${target}" is not a folder, a zip file or a git URL.`);
}

export async function runIngestCli(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean" },
      keep: { type: "boolean" },
      ref: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(INGEST_HELP);
    return 0;
  }
  const target = positionals[0];
  if (!target || positionals.length > 1) {
    console.error(`argus ingest: give exactly one folder, zip file or git URL.\n\n${INGEST_HELP}`);
    return 2;
  }
  const base = await mkdtemp(path.join(os.tmpdir(), "argus-ingest-"));
  const dirs = snapshotDirs(base, "cli", "snapshot");
  const started = Date.now();
  try {
    const progress = values.json
      ? () => {}
      : (stage: string, fraction: number) => process.stderr.write(`\r${stage} ${Math.round(fraction * 100)}%   `);
    const { summary, findings, ingest } = await runImport(
      await sourceFor(target, { ref: values.ref }),
      dirs,
      progress,
      {
        limits: getConfig().ingestLimits,
        projectEslintConfig: getConfig().projectEslintConfig,
        // The operator typed the URL on their own machine: any host, their own ssh keys.
        git: OPERATOR_GIT_POLICY,
      },
    );
    const seconds = (Date.now() - started) / 1000;
    if (values.json) {
      console.log(
        JSON.stringify({
          source: ingest.source,
          commit: ingest.git?.commit,
          ...summary,
          seconds,
          snapshot: values.keep ? dirs.base : undefined,
          findings,
        }),
      );
    } else {
      process.stderr.write("\r");
      console.log(
        `${ingest.source} import: ${summary.files} file${summary.files === 1 ? "" : "s"}, ${summary.lines.toLocaleString()} lines, ${summary.symbols.toLocaleString()} symbols in ${seconds.toFixed(1)} s`,
      );
      for (const [lang, s] of Object.entries(summary.languages).sort((a, b) => b[1].lines - a[1].lines))
        console.log(`  ${lang.padEnd(12)} ${String(s.files).padStart(6)} files ${String(s.lines).padStart(9)} lines`);
      const sev = Object.entries(summary.findingsBySeverity)
        .map(([k, v]) => `${v} ${k}`)
        .join(", ");
      console.log(`static findings: ${sev || "none"}`);
      for (const t of summary.tools) console.log(`  ${t.tool.padEnd(12)} ${t.status}: ${t.detail}`);
      const notes = summary.analysisNotes ?? [];
      if (notes.length) {
        console.log(`analysis ended early or covered only what parsed in ${notes.length} file(s):`);
        for (const n of notes.slice(0, 10)) console.log(`  ${n.path}: ${n.note}`);
        if (notes.length > 10) console.log(`  … and ${notes.length - 10} more (--json lists them)`);
      }
      if (summary.skipped || summary.dropped)
        console.log(
          `left out: ${summary.dropped} ignored or unsafe entries, ${summary.skipped} files not indexed (binary, minified, too large)`,
        );
      if (values.keep) console.log(`snapshot kept at ${dirs.base}`);
    }
    return 0;
  } catch (err) {
    console.error(`argus ingest: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof DomainError || err instanceof UsageError ? 2 : 1;
  } finally {
    if (!values.keep) await rm(base, { recursive: true, force: true });
  }
}
