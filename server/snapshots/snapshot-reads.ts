/**
 * Reading what an import produced: a project's snapshots, one snapshot, its file tree, a file's
 * outline and text, its static findings, and code search over it.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { invalid, notFound } from "../errors.ts";
import { openSymbolIndex } from "../codebase/symbols/index.ts";
import { Sandbox, SandboxError } from "../agent/index.ts";
import { queryEmbedderFor } from "../retrieval/query-embedder.ts";
import { search as searchIndex, type SearchResult } from "../retrieval/search.ts";
import { parseTrace } from "../shared/findings.ts";
import type { findingsInput, searchInput } from "./inputs.ts";
import type { SnapshotView } from "./snapshot-rows.ts";
import { loadProject, loadSnapshot, snapshotView, type SnapshotDeps } from "./snapshot-rows.ts";
import { searchIndexName, snapshotDirs } from "./storage.ts";

const MAX_FILE_VIEW_BYTES = 1024 * 1024;

export async function listSnapshots({ db }: SnapshotDeps, actor: Actor, projectUid: string): Promise<SnapshotView[]> {
  const project = await loadProject(db, projectUid);
  await requireRole(db, actor, project.workspaceId, "viewer");
  const rows = await db.snapshot.findMany({
    where: { projectId: project.id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 50,
  });
  return rows.map((s) => snapshotView(s, project.uid));
}

export async function getSnapshot({ db }: SnapshotDeps, actor: Actor, uid: string): Promise<SnapshotView> {
  const s = await loadSnapshot(db, actor, uid);
  return snapshotView(s, s.project.uid);
}

export async function snapshotTree({ db, config }: SnapshotDeps, actor: Actor, uid: string) {
  const s = await loadSnapshot(db, actor, uid);
  if (s.status !== "ready") return [];
  const index = openSymbolIndex(snapshotDirs(config.dataDir, s.projectId, s.id).symbols);
  try {
    return index.files().map((f) => ({ path: f.path, language: f.language, lines: f.lines, status: f.status }));
  } finally {
    index.close();
  }
}

export async function fileOutline({ db, config }: SnapshotDeps, actor: Actor, uid: string, file: string) {
  const s = await loadSnapshot(db, actor, uid);
  const index = openSymbolIndex(snapshotDirs(config.dataDir, s.projectId, s.id).symbols);
  try {
    return index.listSymbols({ file, limit: 2000 });
  } finally {
    index.close();
  }
}

/** A file's text, read through the same Sandbox as the review agent (no escapes, ignore rules), capped at 1 MB. */
export async function fileText(
  { db, config }: SnapshotDeps,
  actor: Actor,
  uid: string,
  rel: string,
): Promise<{ path: string; content: string; truncated: boolean; size: number }> {
  const s = await loadSnapshot(db, actor, uid);
  let sandbox: Sandbox;
  try {
    sandbox = new Sandbox(snapshotDirs(config.dataDir, s.projectId, s.id).src);
  } catch {
    throw notFound("This snapshot's files are not available (the import did not finish).");
  }
  try {
    const read = sandbox.readFile(rel, { maxBytes: MAX_FILE_VIEW_BYTES });
    return { path: read.path, content: read.content, truncated: read.truncated, size: read.size };
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    throw err.code === "not_found" ? notFound(`There is no file "${rel}" in this snapshot.`) : invalid(err.message);
  }
}

export async function snapshotFindings({ db }: SnapshotDeps, actor: Actor, input: z.infer<typeof findingsInput>) {
  const s = await loadSnapshot(db, actor, input.snapshotUid);
  const rows = await db.staticFinding.findMany({
    where: { snapshotId: s.id, severity: input.severity, file: input.file, tool: input.tool },
    orderBy: [{ file: "asc" }, { startLine: "asc" }],
    take: input.limit,
  });
  return rows.map(({ id: _id, snapshotId: _s, trace, ...f }) => ({ ...f, trace: parseTrace(trace) }));
}

/** Code search over a ready snapshot (hybrid by default); hits carry file and line range for deep links. */
export async function searchSnapshot(
  { db, config, searchIndexes }: SnapshotDeps,
  actor: Actor,
  input: z.infer<typeof searchInput>,
): Promise<SearchResult[]> {
  const s = await loadSnapshot(db, actor, input.snapshotUid);
  if (s.status !== "ready") throw invalid("This snapshot is still being imported; search once it is ready.");
  return searchIndexes.use(searchIndexName(s.id), async (index) => {
    if (!index)
      throw notFound(
        "This snapshot has no search index (it was imported before code search existed). Import the code again.",
      );
    return searchIndex(index, input.query, {
      mode: input.mode,
      k: input.k,
      embedder: await queryEmbedderFor(index, config.embeddings),
      filters: { pathGlob: input.pathGlob, language: input.language, symbolKind: input.symbolKind },
    });
  });
}
