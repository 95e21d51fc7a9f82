/**
 * A push's head, imported onto the snapshot of the last reviewed commit instead of from the whole
 * archive: that snapshot's files are copied, the files the push changed are fetched at the head (the
 * forge's contents API) and written in their place, removed and renamed-away ones are left out. The
 * import then re-runs the per-file tools on the changed files only (server/snapshots/job.ts `reuse`).
 *
 * Anything that makes the increment doubtful returns null, and the caller takes the whole archive:
 * no previous snapshot (deleted, failed, never imported), a forge that cannot hand over a file inline,
 * more changed files than MAX_FETCHED_FILES (the archive is then the cheaper download).
 */
import { stat } from "node:fs/promises";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { ingestOnto, type IngestSummary } from "../codebase/ingest/index.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import type { FileChange, Forge } from "./types.ts";

/** Above this many changed files a push is imported from the whole archive. */
export const MAX_FETCHED_FILES = 100;
/** Files fetched from the forge at once. */
const FETCH_CONCURRENCY = 4;

/** The label of a PR head's snapshot: how the next push finds the snapshot of the commit it builds on. */
export const headLabel = (fullName: string, sha: string) => `${fullName}@${sha.slice(0, 12)}`;

/** The ready snapshot imported at `sha` whose files are still on disk, or null. */
export async function snapshotAt(
  db: Db,
  config: Pick<Config, "dataDir">,
  project: { id: string },
  fullName: string,
  sha: string,
): Promise<{ id: string; src: string } | null> {
  const row = await db.snapshot.findFirst({
    where: {
      projectId: project.id,
      // A PR head's snapshot is of its forge's kind (pull-job.ts beginSnapshot).
      sourceKind: { in: ["github", "gitlab"] },
      sourceLabel: headLabel(fullName, sha),
      status: "ready",
    },
    orderBy: { createdAt: "desc" },
    select: { id: true },
  });
  if (!row) return null;
  const { src } = snapshotDirs(config.dataDir, project.id, row.id);
  const there = await stat(src).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return there ? { id: row.id, src } : null;
}

/** Every path the push touched: changed, added, removed, and the old name of a rename. */
export function touchedPaths(changes: FileChange[]): string[] {
  return [...new Set(changes.flatMap((c) => (c.previousPath ? [c.path, c.previousPath] : [c.path])))];
}

/** The changed files' bytes at the head, or null when the forge would not hand one over. */
async function fetchChanged(forge: Forge, repo: string, sha: string, changes: FileChange[]) {
  const fileAt = forge.fileAt?.bind(forge);
  if (!fileAt) return null;
  const wanted = changes.filter((c) => c.status !== "removed").map((c) => c.path);
  const got = new Map<string, Buffer>();
  let missing = false;
  let next = 0;
  const worker = async () => {
    while (!missing && next < wanted.length) {
      const p = wanted[next++]!;
      const bytes = await fileAt(repo, sha, p);
      if (bytes) got.set(p, bytes);
      else missing = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCH_CONCURRENCY, wanted.length) }, worker));
  return missing ? null : got;
}

/**
 * Writes the head's tree into `dest` from the snapshot at `from` and the push's changes; null (nothing
 * written) when the whole archive must be taken instead.
 */
export async function importPushOnto(options: {
  db: Db;
  config: Pick<Config, "dataDir" | "ingestLimits">;
  forge: Forge;
  project: { id: string };
  repo: string;
  sha: string;
  push: { from: string; changes: FileChange[] };
  dest: string;
}): Promise<{ summary: IngestSummary; reuse: { snapshotId: string; changed: string[] } } | null> {
  const { push } = options;
  if (push.changes.length > MAX_FETCHED_FILES) return null;
  const previous = await snapshotAt(options.db, options.config, options.project, options.repo, push.from);
  if (!previous) return null;
  const fetched = await fetchChanged(options.forge, options.repo, options.sha, push.changes);
  if (!fetched) return null;
  const changed = touchedPaths(push.changes);
  const summary = await ingestOnto({
    dest: options.dest,
    base: previous.src,
    leaveOut: new Set(changed),
    files: fetched,
    limits: options.config.ingestLimits,
  });
  return { summary, reuse: { snapshotId: previous.id, changed } };
}
