/**
 * The import job: runs `runImport` for a snapshot record (uploads arrive already materialised by
 * the upload route), persists findings and the summary, then makes the snapshot the project's
 * current one. Progress goes to the snapshot row (throttled, in order) so every viewer sees it.
 */
import type { Config } from "../config.ts";
import { throttledProgress } from "../jobs/throttled-progress.ts";
import type { Db } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import type { Logger } from "../logger.ts";
import { createSecretBox } from "../lib/secret-box.ts";
import type { IngestSummary } from "../codebase/ingest/index.ts";
import { runImport, type ImportSource } from "./import.ts";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { JobContext, JobMap } from "../jobs/queue.ts";
import { createEmbedderFromSettings } from "../retrieval/embed/settings.ts";
import { searchIndexName, searchStoreUri, snapshotDirs } from "./storage.ts";
import { parseTrace, traceJson } from "../shared/findings.ts";
import type { Finding } from "../codebase/analysis/types.ts";

/** What an import queues (server/jobs/kinds.ts): never a plaintext token (the sealed one is opened when the job runs). */
export type QueuedSource = IngestJob["source"];

/** Where an upload's summary waits for the job, in the snapshot's folder (shared queue only). */
export const UPLOAD_SUMMARY_FILE = "upload-summary.json";

export type IngestJob = JobMap["snapshot.ingest"];

const PROGRESS_EVERY_MS = 500;

export function createIngestJob(deps: {
  db: Db;
  config: Config;
  log: Logger;
  authSecret: string;
  fail: (snapshotId: string, message: string) => Promise<void>;
}) {
  const { db, config, log } = deps;
  const tokens = createSecretBox(deps.authSecret, "git-tokens");

  function progressWriter(snapshotId: string) {
    return throttledProgress(
      (p: { status: string; progress: number; message: string }) =>
        db.snapshot.update({ where: { id: snapshotId }, data: p }),
      (err) => log.warn({ err }, "snapshot progress update failed"),
      PROGRESS_EVERY_MS,
    );
  }

  async function toImportSource(src: QueuedSource, base: string): Promise<ImportSource> {
    if (src.kind === "uploaded")
      return {
        kind: "uploaded",
        summary:
          src.summary ?? (JSON.parse(await readFile(path.join(base, UPLOAD_SUMMARY_FILE), "utf8")) as IngestSummary),
      };
    if (src.kind !== "git") return src;
    return {
      kind: "git",
      url: src.url,
      ref: src.ref,
      accessToken: src.tokenCipher ? tokens.open(src.tokenCipher) : undefined,
    };
  }

  /** A push's import keeps the per-file tools' findings of the previous snapshot on unchanged files. */
  async function reused(reuse: { snapshotId: string; changed: string[] }) {
    const changed = new Set(reuse.changed);
    const rows = await db.staticFinding.findMany({ where: { snapshotId: reuse.snapshotId, tool: { not: "argus" } } });
    const findings: Finding[] = rows
      .filter((r) => !changed.has(r.file))
      .map((r) => {
        const trace = parseTrace(r.trace);
        return {
          tool: r.tool,
          ruleId: r.ruleId,
          severity: r.severity as Finding["severity"],
          confidence: r.confidence,
          file: r.file,
          startLine: r.startLine,
          endLine: r.endLine,
          message: r.message,
          ...(trace ? { trace } : {}),
        };
      });
    return { changed, findings };
  }

  return async function runIngestJob(job: IngestJob, ctx: JobContext = { takeover: false }): Promise<void> {
    const snapshot = await db.snapshot.findUnique({ where: { id: job.snapshotId } });
    if (!snapshot || snapshot.status === "ready" || snapshot.status === "failed") return;
    const dirs = snapshotDirs(config.dataDir, snapshot.projectId, snapshot.id);
    const report = progressWriter(snapshot.id);
    if (ctx.takeover) {
      // The worker importing it stopped: an import is safe to run again from the start. An upload's
      // files are already in place (the upload route wrote them); a clone or a server folder is read again.
      log.warn({ snapshot: snapshot.uid }, "an import's worker stopped; importing again");
      await rm(job.source.kind === "uploaded" ? dirs.index : dirs.base, { recursive: true, force: true });
      report(
        { status: "ingesting", progress: 0, message: "The worker importing this code stopped; importing again." },
        true,
      );
    }
    const started = Date.now();
    try {
      // A push (or re-import) onto a previous snapshot starts from that snapshot's search index.
      const previous = job.source.kind === "uploaded" ? job.source.reuse?.snapshotId : undefined;
      const { ingest, summary, findings, timings, searchSeed } = await runImport(
        await toImportSource(job.source, dirs.base),
        dirs,
        (stage, fraction, message) => report({ status: stage, progress: fraction, message }),
        {
          limits: config.ingestLimits,
          projectEslintConfig: config.projectEslintConfig,
          git: { allowedHosts: config.git.allowedHosts, useServerSshKeys: config.git.useServerSshKeys },
          search: {
            uri: searchStoreUri(config),
            name: searchIndexName(snapshot.id),
            embedder: await createEmbedderFromSettings(config.embeddings),
            ...(previous ? { seedFrom: searchIndexName(previous) } : {}),
          },
          ...(job.source.kind === "uploaded" && job.source.reuse ? { reuse: await reused(job.source.reuse) } : {}),
        },
      );
      if (searchSeed && !searchSeed.seeded)
        log.warn(
          { snapshot: snapshot.uid, reason: searchSeed.reason },
          "the previous snapshot's search index could not be reused; built in full",
        );
      report({ status: "analyzing", progress: 0.96, message: "Saving findings" }, true);
      await report.settle();
      await db.$transaction(async (tx) => {
        for (let i = 0; i < findings.length; i += 500) {
          await tx.staticFinding.createMany({
            data: findings
              .slice(i, i + 500)
              .map(({ trace, ...f }) => ({ ...f, trace: traceJson(trace), snapshotId: snapshot.id })),
          });
        }
        await tx.snapshot.update({
          where: { id: snapshot.id },
          data: {
            status: "ready",
            progress: 1,
            message: null,
            summary: JSON.stringify(summary),
            commit: ingest.git?.commit ?? null,
            finishedAt: new Date(),
          },
        });
        await tx.project.update({
          where: { id: snapshot.projectId },
          data: { status: "ready", currentSnapshotId: snapshot.id },
        });
      });
      log.info(
        {
          snapshot: snapshot.uid,
          files: summary.files,
          ms: Date.now() - started,
          ...timings,
          ...(searchSeed?.seeded ? { searchSeededMs: searchSeed.ms } : {}),
        },
        "snapshot ready",
      );
    } catch (err) {
      await report.settle();
      const { message } = publicError(err, { doing: "importing the code", log, context: { snapshot: snapshot.uid } });
      await deps.fail(snapshot.id, message);
    }
  };
}
