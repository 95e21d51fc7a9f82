/**
 * What a symbol-index build parses, in which order and on how many threads: files' sizes (largest
 * first balances threads, and the total decides whether workers pay), and which files are regular
 * files really inside the snapshot (only those may go to ctags; the pass checks its own).
 */
import { lstat, realpath } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BuildOptions } from "./build-options.ts";
import type { PassInput } from "./pass.ts";

/** Below this much source, worker start-up (~0.4 s each, then cold wasm) costs more than it saves:
 * measured (bench/ingest.ts) no gain at 4 MiB / 118k lines, 1.6× faster at ~8 MiB / 235k lines. */
const WORKER_THRESHOLD_BYTES = 6 * 1024 * 1024;

export interface BuildPlan {
  /** Bytes on disk by path (0 when missing or outside the snapshot's paths). */
  sizes: Map<string, number>;
  /** Regular files whose real path is inside the snapshot root. */
  insideRoot: Set<string>;
  /** The files in the order the pass takes them, largest first. */
  ordered: PassInput[];
  /** Worker threads to start besides the main thread. */
  workers: number;
}

export async function planBuild(options: BuildOptions, root: string, maxParseBytes: number): Promise<BuildPlan> {
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
  return { sizes, insideRoot, ordered, workers };
}
