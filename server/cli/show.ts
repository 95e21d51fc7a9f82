/**
 * `argus show case <memory.json>` — UltraRAG's case-study view (spec §8.2) in the terminal: a batch
 * run's memory file expanded into one case per item (every list value sliced at the item's index;
 * the case count is the longest list), each shown step by step.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { expandCases, readSnapshots, type Case } from "../pipelines/engine/cases.ts";
import type { CliIo } from "./pipeline.ts";

export { expandCases, readSnapshots, type Case };

export const SHOW_HELP = `Usage: argus show case <memory.json> [--case n] [--json]

  Shows a run's memory file (output/memory_*.json) one case per item, step by step.
  --case  only case n (1-based)
  --json  print the cases as JSON`;

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
