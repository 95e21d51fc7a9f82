/**
 * `argus show case <memory.json>` — UltraRAG's case-study view (spec §8.2) in the terminal: a batch
 * run's memory file expanded into one case per item (every list value sliced at the item's index;
 * the case count is the longest list), each shown step by step.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { CliIo } from "./pipeline.ts";

export const SHOW_HELP = `Usage: argus show case <memory.json> [--case n] [--json]

  Shows a run's memory file (output/memory_*.json) one case per item, step by step.
  --case  only case n (1-based)
  --json  print the cases as JSON`;

type Snapshot = { step: string; memory: Record<string, unknown> };
export type Case = { index: number; steps: { step: string; values: Record<string, unknown> }[] };

const MAX_BYTES = 256 * 1024 * 1024;

/** Snapshots from a memory file: a list of {step, memory}, a {cases|data|items: [...]} wrapper, or JSONL. */
export function readSnapshots(file: string): Snapshot[] {
  const size = statSync(file, { throwIfNoEntry: false });
  if (!size?.isFile()) throw new Error(`${file} does not exist`);
  if (size.size > MAX_BYTES) throw new Error(`${file} is larger than ${MAX_BYTES / 2 ** 20} MB`);
  const text = readFileSync(file, "utf8");
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    try {
      data = text
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as unknown);
    } catch {
      throw new Error(
        `${file} is neither JSON nor JSON lines; pass a memory file written by \`argus pipeline run\` (output/memory_*.json)`,
      );
    }
  }
  if (data && typeof data === "object" && !Array.isArray(data)) {
    const o = data as Record<string, unknown>;
    data = o.cases ?? o.data ?? o.items;
  }
  if (!Array.isArray(data)) throw new Error(`${file} must hold a list of {step, memory} snapshots`);
  return data.map((s, i) => {
    const snap = s as Partial<Snapshot> | null;
    if (!snap || typeof snap.step !== "string" || !snap.memory || typeof snap.memory !== "object")
      throw new Error(`${file}: entry ${i + 1} is not a {step, memory} snapshot`);
    return { step: snap.step, memory: snap.memory };
  });
}

export function expandCases(snapshots: readonly Snapshot[]): Case[] {
  let n = 1;
  for (const s of snapshots) for (const v of Object.values(s.memory)) if (Array.isArray(v)) n = Math.max(n, v.length);
  return Array.from({ length: n }, (_, i) => ({
    index: i + 1,
    steps: snapshots.map((s) => ({
      step: s.step,
      values: Object.fromEntries(
        Object.entries(s.memory).flatMap(([k, v]) => (Array.isArray(v) ? (i < v.length ? [[k, v[i]]] : []) : [[k, v]])),
      ),
    })),
  }));
}

const render = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));
const indent = (s: string, by: string) => s.replace(/\n/g, `\n${by}`);

export async function runShowCli(
  argv: string[],
  io: CliIo = { cwd: process.cwd(), out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) },
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        case: { type: "string" },
        json: { type: "boolean" },
        config_path: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    io.err(`argus show: ${err instanceof Error ? err.message : String(err)}\n\n${SHOW_HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${SHOW_HELP}\n`);
    return 0;
  }
  const [what, fileArg] = positionals;
  const file = fileArg ?? values.config_path;
  if (what !== "case" || !file || positionals.length > 2) {
    io.err(`argus show: ${what !== "case" ? `unknown view "${what ?? ""}"` : "missing memory file"}\n\n${SHOW_HELP}\n`);
    return 2;
  }
  let cases: Case[];
  try {
    cases = expandCases(readSnapshots(path.resolve(io.cwd, file)));
  } catch (err) {
    io.err(`argus show: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  if (values.case !== undefined) {
    const n = Number(values.case);
    if (!Number.isInteger(n) || n < 1 || n > cases.length) {
      io.err(`argus show: --case must be a number from 1 to ${cases.length}\n`);
      return 2;
    }
    cases = [cases[n - 1]!];
  }
  if (values.json) {
    io.out(`${JSON.stringify(cases, null, 2)}\n`);
    return 0;
  }
  for (const c of cases) {
    io.out(`── case ${c.index} ──\n`);
    c.steps.forEach((s, i) => {
      io.out(`${i + 1}. ${s.step}\n`);
      for (const [k, v] of Object.entries(s.values)) io.out(`     ${k}: ${indent(render(v), "       ")}\n`);
    });
  }
  return 0;
}
