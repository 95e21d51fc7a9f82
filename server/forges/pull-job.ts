/**
 * The pull-request job (one per accepted delivery): link the repository to its Argus project (created
 * on the first event), record the PR, import its head commit as a snapshot (the forge's archive
 * endpoint with the installation's token — no token in a URL that is stored or logged), and start the
 * diff review in the review's room. The review job's end hands over to publish.ts, which writes the
 * result back to the PR.
 *
 * Quiet by design: a repository set to `off` or `on_request`, a draft, a closed PR and a head already
 * reviewed start nothing. A push (synchronize) reviews only the files changed since the last reviewed
 * commit (the forge's compare), within the PR's own diff.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Config } from "../config.ts";
import type { Db, ForgePull, ForgeRepo, Project } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { ingestZip, resolveLimits } from "../codebase/ingest/index.ts";
import type { IngestJob } from "../snapshots/job.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import { publicError } from "../errors-public.ts";
import type { FileChange, Forge, PullInfo, PullRef } from "./types.ts";
import { headLabel, importPushOnto } from "./head-import.ts";
import { ForgeGoneError } from "./types.ts";
import type { PullJob } from "./github/intake.ts";
import { readRepoRules } from "./repo-rules.ts";
import { selectReviewed } from "./selection.ts";
import { reviewInstructions } from "./guidance.ts";
import { matcherFor } from "../lib/path-match.ts";
import type { Severity } from "../shared/findings.ts";

export interface PullJobDeps {
  db: Db;
  config: Config;
  log: Logger;
  /** The forge acting for an installation (its row id). */
  forgeFor: (installationId: string) => Promise<Forge>;
  /** `forge` is the snapshot's source kind (github | gitlab). */
  beginSnapshot: (project: Project, label: string, forge: Forge["kind"]) => Promise<{ id: string; uid: string }>;
  runIngest: (job: IngestJob) => Promise<void>;
  failSnapshot: (snapshotId: string, message: string) => Promise<void>;
  /**
   * Starts the review with this uid (static or agent, chosen for the workspace; `.argus.yaml` engine
   * may say which), the repository's instructions given to the agent (guidance.ts).
   */
  startReview: (
    uid: string,
    project: Project,
    paths: string[],
    settings: { minSeverity: Severity },
    repo: { engine: "auto" | "agent" | "static"; instructions: string | null },
  ) => Promise<void>;
}

/** The repository's link to its Argus project, made on its first event (a pull request or a comment). */
export async function linkRepo(
  db: Db,
  job: Pick<PullJob, "installationId" | "repo">,
): Promise<ForgeRepo & { project: Project }> {
  const existing = await db.forgeRepo.findUnique({
    where: { installationId_externalId: { installationId: job.installationId, externalId: String(job.repo.id) } },
    include: { project: true },
  });
  if (existing) {
    if (existing.fullName === job.repo.fullName) return existing;
    return db.forgeRepo.update({
      where: { id: existing.id },
      data: { fullName: job.repo.fullName },
      include: { project: true },
    });
  }
  const installation = await db.forgeInstallation.findUniqueOrThrow({ where: { id: job.installationId } });
  return db.$transaction(async (tx) => {
    const project = await tx.project.create({
      data: {
        uid: crypto.randomUUID(),
        workspaceId: installation.workspaceId,
        name: job.repo.fullName.slice(0, 120),
        sourceKind: installation.forge,
      },
    });
    const repo = await tx.forgeRepo.create({
      data: {
        installationId: installation.id,
        externalId: String(job.repo.id),
        fullName: job.repo.fullName,
        projectId: project.id,
      },
    });
    return { ...repo, project };
  });
}

/** What a pull request's job did: a review started (its uid), or why not. */
export type PullOutcome =
  | { started: string }
  | { skipped: "off" | "on_request" | "closed" | "draft" | "reviewed" | "gone" | "nothing" | "import" };

/** The PR's row, written from what the forge says of it now (created on its first event). */
export async function recordPull(db: Db, repoId: string, number: number, info: PullInfo): Promise<ForgePull> {
  const fields = {
    title: info.title.slice(0, 500),
    url: info.url,
    headRef: info.headRef,
    headSha: info.headSha,
    baseSha: info.baseSha,
    state: info.state,
  };
  return db.forgePull.upsert({
    where: { repoId_number: { repoId, number } },
    create: { repoId, number, ...fields },
    update: fields,
  });
}

export function createPullJob(deps: PullJobDeps) {
  const { db, config, log } = deps;

  /**
   * The snapshot's source folder once imported, or null when the import failed (the snapshot says why).
   * `push`: the commit last reviewed and what changed since — the head is then built from that commit's
   * snapshot and the changed files (head-import.ts), the whole archive only when that cannot be done.
   */
  async function importHead(
    forge: Forge,
    repo: ForgeRepo & { project: Project },
    sha: string,
    push?: { from: string; changes: FileChange[] },
  ): Promise<string | null> {
    const snapshot = await deps.beginSnapshot(repo.project, headLabel(repo.fullName, sha), forge.kind);
    const dirs = snapshotDirs(config.dataDir, repo.project.id, snapshot.id);
    const tmp = await mkdtemp(path.join(os.tmpdir(), "argus-forge-"));
    const started = performance.now();
    try {
      const onto = push
        ? await importPushOnto({
            db,
            config,
            forge,
            project: repo.project,
            repo: repo.fullName,
            sha,
            push,
            dest: dirs.src,
          })
        : null;
      let summary = onto?.summary;
      if (!summary) {
        const zipPath = path.join(tmp, "head.zip");
        await forge.downloadArchive(repo.fullName, sha, zipPath);
        summary = await ingestZip({
          dest: dirs.src,
          zipPath,
          limits: resolveLimits(config.ingestLimits),
          onProgress: () => undefined,
        });
      }
      const materialisedMs = Math.round(performance.now() - started);
      await deps.runIngest({
        snapshotId: snapshot.id,
        source: { kind: "uploaded", summary, ...(onto ? { reuse: onto.reuse } : {}) },
      });
      log.info(
        {
          repo: repo.fullName,
          sha,
          from: onto ? push?.from : undefined,
          changed: onto?.reuse.changed.length,
          materialisedMs,
          indexedMs: Math.round(performance.now() - started) - materialisedMs,
        },
        onto
          ? "pull request head imported onto the last reviewed snapshot"
          : "pull request head imported from its archive",
      );
    } catch (err) {
      const { message } = publicError(err, { doing: "importing the pull request's head commit", log });
      await deps.failSnapshot(snapshot.id, message);
      throw err;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    const done = await db.snapshot.findUnique({ where: { id: snapshot.id }, select: { status: true, message: true } });
    if (done?.status !== "ready") {
      log.warn({ repo: repo.fullName, sha, reason: done?.message }, "the pull request's head could not be imported");
      return null;
    }
    return dirs.src;
  }

  /**
   * `requested`: `@argus review` asked for it — a repository `on_request` is reviewed then (one set
   * `off` never is), and a draft too.
   */
  async function runPullJob(job: PullJob & { requested?: boolean }): Promise<PullOutcome> {
    const repo = await linkRepo(db, job);
    const ref: PullRef = { repo: repo.fullName, number: job.number };
    const existing = await db.forgePull.findUnique({
      where: { repoId_number: { repoId: repo.id, number: job.number } },
    });
    if (job.action === "closed") {
      if (existing) await db.forgePull.update({ where: { id: existing.id }, data: { state: "closed" } });
      return { skipped: "closed" };
    }
    if (repo.mode === "off") return { skipped: "off" };
    if (repo.mode !== "auto" && !job.requested) return { skipped: "on_request" }; // only `@argus review` starts one
    const forge = await deps.forgeFor(job.installationId);
    let info;
    try {
      info = await forge.pull(ref);
    } catch (err) {
      if (err instanceof ForgeGoneError) {
        log.warn({ repo: repo.fullName, pull: job.number }, err.message);
        return { skipped: "gone" };
      }
      throw err;
    }
    const pull = await recordPull(db, repo.id, job.number, info);
    if (info.state === "closed") return { skipped: "closed" };
    if (info.draft && !job.requested) return { skipped: "draft" }; // drafts wait for ready_for_review
    if (pull.lastReviewedSha === info.headSha || pull.reviewingSha === info.headSha) return { skipped: "reviewed" };

    const diff = await forge.diff(ref);
    const prFiles = diff.filter((f) => f.status !== "removed").map((f) => f.path);
    let files = prFiles;
    let from: string | null = null;
    let push: { from: string; changes: FileChange[] } | undefined;
    if (pull.lastReviewedSha) {
      const changes = await forge.changedBetween(repo.fullName, pull.lastReviewedSha, info.headSha);
      if (changes) {
        const inPr = new Set(prFiles);
        files = changes.filter((c) => c.status !== "removed" && inPr.has(c.path)).map((c) => c.path);
        from = pull.lastReviewedSha;
        push = { from, changes };
      }
    }
    if (files.length === 0) {
      await db.forgePull.update({ where: { id: pull.id }, data: { lastReviewedSha: info.headSha } });
      return { skipped: "nothing" };
    }
    const src = await importHead(forge, repo, info.headSha, push);
    if (!src) return { skipped: "import" };
    // The repository's .argus.yaml (at the head): ignored paths are not reviewed, the floor applies.
    const { rules } = await readRepoRules(src);
    if (rules.ignore.length) {
      const ignored = matcherFor(rules.ignore);
      files = files.filter((f) => !ignored(f));
    }
    if (files.length === 0) {
      await db.forgePull.update({ where: { id: pull.id }, data: { lastReviewedSha: info.headSha } });
      return { skipped: "nothing" };
    }
    const project = await db.project.findUniqueOrThrow({ where: { id: repo.projectId } });
    // The PR names its review before the review starts: its end (publish.ts) finds the PR by it.
    const reviewUid = crypto.randomUUID();
    await db.forgePull.update({
      where: { id: pull.id },
      data: { lastReviewUid: reviewUid, reviewingSha: info.headSha, reviewingFrom: from },
    });
    // A huge PR is reviewed on its first files within .argus.yaml's max_files / max_lines (publish.ts says which were not).
    const { reviewed } = selectReviewed(diff, files, rules);
    const guidance = await reviewInstructions(src, rules.instructions);
    await deps.startReview(
      reviewUid,
      project,
      reviewed,
      { minSeverity: rules.minSeverity },
      { engine: rules.engine, instructions: guidance.text },
    );
    log.info(
      { repo: repo.fullName, pull: job.number, review: reviewUid, files: files.length },
      "pull request review started",
    );
    return { started: reviewUid };
  }

  return Object.assign(runPullJob, { importHead });
}
