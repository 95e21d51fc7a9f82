/**
 * Snapshots of a project's code: start an import (upload, git, server path), follow its progress,
 * and read what it produced (file tree, file contents, outline, static findings). The heavy work —
 * ingest, symbol index, static rules — runs in server/codebase; this service keeps the records.
 *
 * This file only composes the parts, each in its own module over the shared SnapshotDeps
 * (snapshot-rows.ts): start-import.ts (the record and the job of a new import), snapshot-reads.ts
 * (what an import produced), import-endings.ts (failed and interrupted imports).
 */
import { z } from "zod";
import type { Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, Project, Snapshot } from "../db/client.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import { createSecretBox } from "../lib/secret-box.ts";
import type { GitNetworkPolicy, ImportPathPolicy } from "../codebase/ingest/index.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { SearchResult } from "../retrieval/search.ts";
import { failImport, recoverInterruptedImports } from "./import-endings.ts";
import type { findingsInput, importGitInput, importPathInput, searchInput } from "./inputs.ts";
import type { SnapshotView } from "./snapshot-rows.ts";
import type { SnapshotDeps } from "./snapshot-rows.ts";
import {
  fileOutline,
  fileText,
  getSnapshot,
  listSnapshots,
  searchSnapshot,
  snapshotFindings,
  snapshotTree,
} from "./snapshot-reads.ts";
import { beginImport, importGit, importPath, projectForImport } from "./start-import.ts";

export { displayUrl } from "./start-import.ts";
export { SNAPSHOT_DONE } from "./import-endings.ts";

export { findingsInput, importGitInput, importPathInput, searchInput } from "./inputs.ts";
export type { SnapshotView } from "./snapshot-rows.ts";

export function createSnapshotService(deps: {
  db: Db;
  config: Config;
  queue: JobQueue;
  log: Logger;
  authSecret: string;
  searchIndexes: IndexCache;
}) {
  const { config } = deps;
  const gitPolicy: GitNetworkPolicy = {
    allowedHosts: config.git.allowedHosts,
    useServerSshKeys: config.git.useServerSshKeys,
  };
  const pathPolicy: ImportPathPolicy = { roots: config.importPathRoots, protectedDirs: [config.dataDir] };
  const d: SnapshotDeps = {
    db: deps.db,
    config,
    queue: deps.queue,
    log: deps.log,
    searchIndexes: deps.searchIndexes,
    tokens: createSecretBox(deps.authSecret, "git-tokens"),
    gitPolicy,
    pathPolicy,
  };

  return {
    /** Creates the snapshot record and marks the project as importing (actor null: a forge's webhook). */
    begin: (
      project: Project,
      actor: NonNullable<Actor> | null,
      sourceKind: string,
      sourceLabel: string,
    ): Promise<Snapshot> => beginImport(d, project, actor, sourceKind, sourceLabel),

    /** For the upload route: the project, after checking the actor may import into it. */
    projectForImport: (actor: Actor, projectUid: string): Promise<{ project: Project; actor: NonNullable<Actor> }> =>
      projectForImport(d, actor, projectUid),
    importGit: (actor: Actor, input: z.infer<typeof importGitInput>): Promise<SnapshotView> =>
      importGit(d, actor, input),
    importPath: (actor: Actor, input: z.infer<typeof importPathInput>): Promise<SnapshotView> =>
      importPath(d, actor, input),

    list: (actor: Actor, projectUid: string): Promise<SnapshotView[]> => listSnapshots(d, actor, projectUid),
    get: (actor: Actor, uid: string): Promise<SnapshotView> => getSnapshot(d, actor, uid),
    tree: (actor: Actor, uid: string) => snapshotTree(d, actor, uid),
    outline: (actor: Actor, uid: string, file: string) => fileOutline(d, actor, uid, file),
    /** A file's text, read through the same Sandbox as the review agent (no escapes, ignore rules), capped at 1 MB. */
    file: (
      actor: Actor,
      uid: string,
      rel: string,
    ): Promise<{ path: string; content: string; truncated: boolean; size: number }> => fileText(d, actor, uid, rel),
    findings: (actor: Actor, input: z.infer<typeof findingsInput>) => snapshotFindings(d, actor, input),
    /** Code search over a ready snapshot (hybrid by default); hits carry file and line range for deep links. */
    search: (actor: Actor, input: z.infer<typeof searchInput>): Promise<SearchResult[]> =>
      searchSnapshot(d, actor, input),

    /** Marks an import failed (files removed); the previous snapshot, if any, stays current. */
    fail: (snapshotId: string, message: string): Promise<void> => failImport(d, snapshotId, message),

    /** Why an import a shared queue gave up on (its workers stopped twice) failed. */
    abandonedReason:
      "Two workers stopped while importing this code (their processes ended), so the import was given up. Import the code again.",

    /** On start (in-process queue only): imports cut off by a restart are marked failed and their partial files removed. */
    recoverInterrupted: (): Promise<number> => recoverInterruptedImports(d),
  };
}

export type SnapshotService = ReturnType<typeof createSnapshotService>;
