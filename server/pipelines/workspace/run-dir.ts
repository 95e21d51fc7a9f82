/**
 * A web run's directory, `DATA_DIR/pipeline-runs/<run uid>/`: the gallery's sample data and prompt
 * templates (copied, so a run can never change the gallery), the pipeline as `<name>.yaml`, its
 * parameter file as `parameter/<name>_parameter.yaml` (secrets left out: they reach the engine as
 * overrides) and the data set a run was given. Everything the run writes (indexes, results, the
 * memory file) goes there while it runs; when it ends, the memory file — what the run page shows —
 * moves to `DATA_DIR/pipeline-runs/memory/<run uid>.json` and the folder is removed
 * (`finishRunDir`). Folders a crash left behind are removed at start-up (`sweepRunDirs`).
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { GALLERY_ASSETS, GALLERY_DIR } from "./gallery.ts";

export const runsRoot = (dataDir: string) => path.join(dataDir, "pipeline-runs");

export interface RunDir {
  dir: string;
  /** The pipeline file, relative to `dir`. */
  file: string;
}

export function prepareRunDir(
  root: string,
  uid: string,
  input: { name: string; source: string; parameters: Record<string, unknown>; files?: Record<string, string> },
): RunDir {
  const dir = path.join(root, uid);
  mkdirSync(dir, { recursive: true });
  for (const asset of GALLERY_ASSETS)
    cpSync(path.join(GALLERY_DIR, asset), path.join(dir, asset), { recursive: true, dereference: false });
  const file = `${input.name}.yaml`;
  writeFileSync(path.join(dir, file), input.source);
  mkdirSync(path.join(dir, "parameter"), { recursive: true });
  writeFileSync(
    path.join(dir, "parameter", `${input.name}_parameter.yaml`),
    stringify(input.parameters, { indentSeq: false, lineWidth: 0 }),
  );
  for (const [rel, text] of Object.entries(input.files ?? {})) {
    const target = path.join(dir, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return { dir, file };
}

/** Where a run given an uploaded data set keeps it (relative to the run's directory). */
export const UPLOADED_DATASET = "data/uploaded.jsonl";

/** The uploaded data set a run ran on, or null when its folder (or the file) is gone. */
export function uploadedDataset(root: string, uid: string): string | null {
  try {
    const live = path.join(root, uid, UPLOADED_DATASET);
    return readFileSync(existsSync(live) ? live : keptUpload(root, uid), "utf8");
  } catch {
    return null;
  }
}

export function removeRunDir(root: string, uid: string): void {
  rmSync(path.join(root, uid), { recursive: true, force: true });
}

const KEPT = "memory";
/** Where a finished run's uploaded data set is kept (a re-run reads it). */
const keptUpload = (root: string, uid: string) => path.join(root, KEPT, `${uid}.uploaded.jsonl`);

/**
 * A finished run's folder: its memory file (absolute, inside the folder) and its uploaded data set
 * (for a re-run) are kept under `<root>/memory/`, the rest removed. Returns the kept file's path (null when there was none).
 */
export function finishRunDir(root: string, uid: string, memoryFile: string | null): string | null {
  let kept: string | null = null;
  const dir = path.join(root, uid);
  if (memoryFile && memoryFile.startsWith(dir + path.sep) && existsSync(memoryFile)) {
    mkdirSync(path.join(root, KEPT), { recursive: true });
    kept = path.join(root, KEPT, `${uid}.json`);
    copyFileSync(memoryFile, kept);
  }
  const upload = path.join(dir, UPLOADED_DATASET);
  if (existsSync(upload)) {
    mkdirSync(path.join(root, KEPT), { recursive: true });
    copyFileSync(upload, keptUpload(root, uid));
  }
  removeRunDir(root, uid);
  return kept;
}

/** Removes every run folder except those of `running` runs (and the kept memory files). */
export function sweepRunDirs(root: string, running: ReadonlySet<string>): number {
  if (!existsSync(root)) return 0;
  let removed = 0;
  for (const e of readdirSync(root, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === KEPT || running.has(e.name)) continue;
    rmSync(path.join(root, e.name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
