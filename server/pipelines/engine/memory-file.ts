/**
 * `output/memory_<bench>_<pipeline>_<YYYYMMDD_HHMMSS>.json` (spec §4.1): one snapshot per executed
 * step, relative to the run's directory. `<bench>` is the `benchmark` alias's `benchmark.name`
 * (quirk Q17, kept). A second run in the same second gets `_2`, `_3` … instead of overwriting.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AliasParameters } from "../dsl/params.ts";
import { memoryJson } from "./values.ts";

/** The memory pool after one executed step. */
export interface Snapshot {
  step: string;
  memory: Record<string, unknown>;
}

const pad = (n: number) => String(n).padStart(2, "0");
export const timestamp = (d: Date) =>
  `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}_${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;

export function benchmarkName(parameters: AliasParameters): string {
  const b = parameters.benchmark?.benchmark as { name?: unknown } | undefined;
  return b && typeof b === "object" && b.name !== undefined && b.name !== null ? String(b.name) : "";
}

export function writeMemoryFile(
  cwd: string,
  stem: string,
  parameters: AliasParameters,
  snapshots: readonly Snapshot[],
  now: Date,
): string {
  const dir = path.join(cwd, "output");
  mkdirSync(dir, { recursive: true });
  // The benchmark name is a parameter (another user's, from the web app): it names a file in output/,
  // never a path — separators and control characters become "_", and it is kept short.
  const name = benchmarkName(parameters)
    .replace(/[\\/\u0000-\u001f\u007f]/g, "_")
    .slice(0, 100);
  const base = `memory_${name}_${stem}_${timestamp(now)}`;
  let file = path.join(dir, `${base}.json`);
  for (let n = 2; existsSync(file); n++) file = path.join(dir, `${base}_${n}.json`);
  writeFileSync(file, `${JSON.stringify(memoryJson(snapshots), null, 2)}\n`, { flag: "wx" });
  return file;
}
