/**
 * A run's memory file as cases (UltraRAG's case-study view, spec §8.2): the snapshots of every
 * executed step, expanded into one case per item (every list value sliced at the item's index; the
 * case count is the longest list), each step by step. `argus show case` prints them; the web app's
 * run page shows one case at a time.
 */
import { readFileSync, statSync } from "node:fs";

export type Snapshot = { step: string; memory: Record<string, unknown> };
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
