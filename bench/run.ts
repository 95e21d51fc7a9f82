/**
 * `npm run bench -- <name>` runs bench/<name>.ts and writes bench/results/<name>.json: the figures the
 * benchmark returns (each next to the baseline it measured in the same run) plus machine facts.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type Benchmark = () => Promise<Record<string, unknown>>;

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const name = process.argv[2];
const available = readdirSync(benchDir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_"))
  .map((f) => f.replace(/\.ts$/, ""));

if (!name || !available.includes(name)) {
  console.error(`Usage: npm run bench -- <name>\nAvailable: ${available.join(", ") || "(none)"}`);
  process.exit(2);
}

const mod = (await import(pathToFileURL(path.join(benchDir, `${name}.ts`)).href)) as { default: Benchmark };
const started = new Date();
const figures = await mod.default();
const result = {
  name,
  startedAt: started.toISOString(),
  durationMs: Date.now() - started.getTime(),
  machine: {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  },
  figures,
};
// BENCH_RESULTS_DIR: elsewhere than the committed bench/results (CI runs the bench without touching the tree).
const outDir = process.env.BENCH_RESULTS_DIR
  ? path.resolve(process.env.BENCH_RESULTS_DIR)
  : path.join(benchDir, "results");
if (!existsSync(outDir)) mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result.figures, null, 2));
console.log(`wrote ${path.relative(process.cwd(), path.join(outDir, `${name}.json`)) || `${name}.json`}`);
process.exit(0);
