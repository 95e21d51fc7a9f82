/**
 * Snapshots of a project's code: start an import (upload, git, server path), follow its progress,
 * and read what it produced (file tree, file contents, outline, static findings). The heavy work —
 * ingest, symbol index, static rules — runs in server/codebase; this service keeps the records.
 */
import { rm } from "node:fs/promises";
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { Db, Project, Snapshot } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../logger.ts";
import { createSecretBox } from "../lib/secret-box.ts";
import { openSymbolIndex } from "../codebase/symbols/index.ts";
import {
  parseGitUrl,
  planGitConnection,
  resolveImportPath,
  type GitNetworkPolicy,
  type ImportPathPolicy,
  type ParsedGitUrl,
} from "../codebase/ingest/index.ts";
import type { SnapshotSummary } from "./import.ts";
import { Sandbox, SandboxError } from "../agent/index.ts";
import { queryEmbedderFor } from "../retrieval/query-embedder.ts";
import { searchIndexName, searchStoreUri, snapshotDirs } from "./storage.ts";
import { connect, dropIndex, type IndexCache } from "../retrieval/store/index.ts";
import { search as searchIndex, type SearchResult } from "../retrieval/search.ts";
import { parseTrace, severitySchema } from "../shared/findings.ts";

/** The URL as people may see it: any credentials in it removed. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.toString();
  } catch {
    return url; // scp-like ssh (git@host:org/repo.git) carries no secret
  }
}

export const SNAPSHOT_DONE = ["ready", "failed"] as const;
const MAX_FILE_VIEW_BYTES = 1024 * 1024;

export const importGitInput = z.object({
  projectUid: z.uuid(),
  url: z.string().trim().min(1, "Enter the repository URL.").max(2000),
  ref: z.string().trim().max(250).optional(),
  /** An access token for a private https repository; stored encrypted for refreshes of the same origin. */
  token: z.string().trim().min(1).max(1000).optional(),
});
export const importPathInput = z.object({
  projectUid: z.uuid(),
  path: z.string().trim().min(1, "Enter a folder path on the server.").max(4096),
});
export const searchInput = z.object({
  snapshotUid: z.uuid(),
  query: z.string().max(8192, "Keep the query under 8,192 characters."),
  mode: z.enum(["hybrid", "fulltext", "vector"]).default("hybrid"),
  k: z.number().int().min(1).max(100).default(20),
  pathGlob: z.string().max(500).optional(),
  language: z.string().max(50).optional(),
  symbolKind: z.string().max(50).optional(),
});

export const findingsInput = z.object({
  snapshotUid: z.uuid(),
  severity: severitySchema.optional(),
  file: z.string().max(4096).optional(),
  tool: z.string().max(50).optional(),
  limit: z.number().int().min(1).max(1000).default(500),
});

export type SnapshotView = Omit<Snapshot, "id" | "projectId" | "summary" | "createdById"> & {
  summary: SnapshotSummary | null;
  projectUid: string;
};

export function createSnapshotService(deps: {
  db: Db;
  config: Config;
  queue: JobQueue;
  log: Logger;
  authSecret: string;
  searchIndexes: IndexCache;
}) {
  const { db, config, queue } = deps;
  const tokens = createSecretBox(deps.authSecret, "git-tokens");
  const gitPolicy: GitNetworkPolicy = {
    allowedHosts: config.git.allowedHosts,
    useServerSshKeys: config.git.useServerSshKeys,
  };
  const pathPolicy: ImportPathPolicy = { roots: config.importPathRoots, protectedDirs: [config.dataDir] };

  /**
   * The token a git import sends, and the origin it is bound to. A token is sent only to the origin
   * (scheme://host[:port]) it was given for: a URL on another origin gets no token unless one is
   * given with it, and the stored one is then forgotten (it would never be sent anywhere again).
   * Tokens stored before origins were recorded are treated the same way: never sent, re-entered once.
   */
  function tokenFor(
    project: Project,
    parsed: ParsedGitUrl,
    given: string | undefined,
  ): { gitTokenCipher: string | null; gitTokenOrigin: string | null } {
    if (given) {
      if (!parsed.origin)
        throw invalid("An access token works only with an https URL; give the repository's https URL with it.");
      return { gitTokenCipher: tokens.seal(given), gitTokenOrigin: parsed.origin };
    }
    if (project.gitTokenCipher && project.gitTokenOrigin && project.gitTokenOrigin === parsed.origin)
      return { gitTokenCipher: project.gitTokenCipher, gitTokenOrigin: project.gitTokenOrigin };
    return { gitTokenCipher: null, gitTokenOrigin: null };
  }

  /** Best effort: a half-built search index of a failed import is removed. */
  async function dropSearchIndex(snapshotId: string): Promise<void> {
    const store = await connect(searchStoreUri(config)).catch(() => null);
    if (!store) return;
    try {
      await dropIndex(store, searchIndexName(snapshotId));
    } catch (err) {
      deps.log.warn({ err }, "could not drop a failed import's search index");
    } finally {
      store.close();
    }
  }

  const view = (s: Snapshot, projectUid: string): SnapshotView => {
    const { id: _id, projectId: _p, summary, createdById: _c, ...rest } = s;
    return { ...rest, projectUid, summary: summary ? (JSON.parse(summary) as SnapshotSummary) : null };
  };

  async function loadProject(uid: string): Promise<Project> {
    const project = await db.project.findUnique({ where: { uid } });
    if (!project) throw notFound(`No project with id ${uid}. It may have been deleted.`);
    return project;
  }

  async function loadSnapshot(actor: Actor, uid: string) {
    const snapshot = await db.snapshot.findUnique({ where: { uid }, include: { project: true } });
    if (!snapshot) throw notFound(`No snapshot with id ${uid}.`);
    await requireRole(db, actor, snapshot.project.workspaceId, "viewer");
    return snapshot;
  }

  /** Creates the snapshot record and marks the project as importing (actor null: a forge's webhook). */
  async function begin(
    project: Project,
    actor: NonNullable<Actor> | null,
    sourceKind: string,
    sourceLabel: string,
  ): Promise<Snapshot> {
    const snapshot = await db.snapshot.create({
      data: {
        uid: crypto.randomUUID(),
        projectId: project.id,
        sourceKind,
        sourceLabel,
        status: "ingesting",
        createdById: actor?.userId ?? null,
      },
    });
    await db.project.update({ where: { id: project.id }, data: { status: "ingesting", sourceKind } });
    return snapshot;
  }

  return {
    begin,

    /** For the upload route: the project, after checking the actor may import into it. */
    async projectForImport(actor: Actor, projectUid: string): Promise<{ project: Project; actor: NonNullable<Actor> }> {
      const project = await loadProject(projectUid);
      await requireRole(db, actor, project.workspaceId, "member");
      return { project, actor: actor! };
    },

    async importGit(actor: Actor, input: z.infer<typeof importGitInput>): Promise<SnapshotView> {
      const project = await loadProject(input.projectUid);
      await requireRole(db, actor, project.workspaceId, "member");
      const parsed = parseGitUrl(input.url); // refuses file:, ext::, "-…" before anything runs
      // Internal addresses are refused now, with a clear message; the job checks again and pins the address.
      await planGitConnection(parsed, gitPolicy);
      const ref = input.ref || undefined;
      const token = tokenFor(project, parsed, input.token);
      await db.project.update({
        where: { id: project.id },
        data: { gitUrl: displayUrl(parsed.url), gitRef: ref ?? null, ...token },
      });
      const snapshot = await begin(
        project,
        actor!,
        "git",
        ref ? `${displayUrl(parsed.url)} @ ${ref}` : displayUrl(parsed.url),
      );
      await queue.enqueue("snapshot.ingest", {
        snapshotId: snapshot.id,
        source: { kind: "git", url: input.url, ref, tokenCipher: token.gitTokenCipher ?? undefined },
      });
      return view(snapshot, project.uid);
    },

    async importPath(actor: Actor, input: z.infer<typeof importPathInput>): Promise<SnapshotView> {
      const project = await loadProject(input.projectUid);
      // Reading the server's own disk is for the people who run it: owners, inside the operator's roots.
      await requireRole(db, actor, project.workspaceId, "owner");
      const real = await resolveImportPath(input.path, pathPolicy);
      const snapshot = await begin(project, actor!, "path", input.path);
      await queue.enqueue("snapshot.ingest", {
        snapshotId: snapshot.id,
        source: { kind: "path", path: real, policy: pathPolicy },
      });
      return view(snapshot, project.uid);
    },

    async list(actor: Actor, projectUid: string): Promise<SnapshotView[]> {
      const project = await loadProject(projectUid);
      await requireRole(db, actor, project.workspaceId, "viewer");
      const rows = await db.snapshot.findMany({
        where: { projectId: project.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: 50,
      });
      return rows.map((s) => view(s, project.uid));
    },

    async get(actor: Actor, uid: string): Promise<SnapshotView> {
      const s = await loadSnapshot(actor, uid);
      return view(s, s.project.uid);
    },

    async tree(actor: Actor, uid: string) {
      const s = await loadSnapshot(actor, uid);
      if (s.status !== "ready") return [];
      const index = openSymbolIndex(snapshotDirs(config.dataDir, s.projectId, s.id).symbols);
      try {
        return index.files().map((f) => ({ path: f.path, language: f.language, lines: f.lines, status: f.status }));
      } finally {
        index.close();
      }
    },

    async outline(actor: Actor, uid: string, file: string) {
      const s = await loadSnapshot(actor, uid);
      const index = openSymbolIndex(snapshotDirs(config.dataDir, s.projectId, s.id).symbols);
      try {
        return index.listSymbols({ file, limit: 2000 });
      } finally {
        index.close();
      }
    },

    /** A file's text, read through the same Sandbox as the review agent (no escapes, ignore rules), capped at 1 MB. */
    async file(
      actor: Actor,
      uid: string,
      rel: string,
    ): Promise<{ path: string; content: string; truncated: boolean; size: number }> {
      const s = await loadSnapshot(actor, uid);
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
    },

    async findings(actor: Actor, input: z.infer<typeof findingsInput>) {
      const s = await loadSnapshot(actor, input.snapshotUid);
      const rows = await db.staticFinding.findMany({
        where: { snapshotId: s.id, severity: input.severity, file: input.file, tool: input.tool },
        orderBy: [{ file: "asc" }, { startLine: "asc" }],
        take: input.limit,
      });
      return rows.map(({ id: _id, snapshotId: _s, trace, ...f }) => ({ ...f, trace: parseTrace(trace) }));
    },

    /** Code search over a ready snapshot (hybrid by default); hits carry file and line range for deep links. */
    async search(actor: Actor, input: z.infer<typeof searchInput>): Promise<SearchResult[]> {
      const s = await loadSnapshot(actor, input.snapshotUid);
      if (s.status !== "ready") throw invalid("This snapshot is still being imported; search once it is ready.");
      return deps.searchIndexes.use(searchIndexName(s.id), async (index) => {
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
    },

    /** Marks an import failed (files removed); the previous snapshot, if any, stays current. */
    async fail(snapshotId: string, message: string): Promise<void> {
      // Snapshot and project change together: a reader never sees a failed import on a project still "ingesting".
      const s = await db.$transaction(async (tx) => {
        const failed = await tx.snapshot.update({
          where: { id: snapshotId },
          data: { status: "failed", message, finishedAt: new Date() },
        });
        const project = await tx.project.findUniqueOrThrow({ where: { id: failed.projectId } });
        await tx.project.update({
          where: { id: project.id },
          data: { status: project.currentSnapshotId ? "ready" : "failed" },
        });
        return failed;
      });
      await rm(snapshotDirs(config.dataDir, s.projectId, s.id).base, { recursive: true, force: true });
      await dropSearchIndex(s.id);
    },

    /** Why an import a shared queue gave up on (its workers stopped twice) failed. */
    abandonedReason:
      "Two workers stopped while importing this code (their processes ended), so the import was given up. Import the code again.",

    /** On start (in-process queue only): imports cut off by a restart are marked failed and their partial files removed. */
    async recoverInterrupted(): Promise<number> {
      const stuck = await db.snapshot.findMany({ where: { status: { notIn: [...SNAPSHOT_DONE] } } });
      for (const s of stuck) {
        await rm(snapshotDirs(config.dataDir, s.projectId, s.id).base, { recursive: true, force: true });
        await db.snapshot.update({
          where: { id: s.id },
          data: {
            status: "failed",
            message: "Interrupted by a server restart. Import the code again.",
            finishedAt: new Date(),
          },
        });
        await db.project.update({ where: { id: s.projectId }, data: { status: "failed" } });
      }
      return stuck.length;
    },
  };
}

export type SnapshotService = ReturnType<typeof createSnapshotService>;
