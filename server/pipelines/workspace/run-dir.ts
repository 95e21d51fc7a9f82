/**
 * A web run's directory, `DATA_DIR/pipeline-runs/<run uid>/`: the gallery's sample data and prompt
 * templates (copied, so a run can never change the gallery), the pipeline as `<name>.yaml`, its
 * parameter file as `parameter/<name>_parameter.yaml` (secrets left out: they reach the engine as
 * overrides) and the data set a run was given. Everything the run writes (indexes, results, the
 * memory file) stays in it.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    return readFileSync(path.join(root, uid, UPLOADED_DATASET), "utf8");
  } catch {
    return null;
  }
}

export function removeRunDir(root: string, uid: string): void {
  rmSync(path.join(root, uid), { recursive: true, force: true });
}
