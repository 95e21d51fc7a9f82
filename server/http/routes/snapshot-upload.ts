/**
 * POST /api/projects/<uid>/upload?kind=zip|files|folder — code uploads stream from the request to
 * disk (busboy for multipart; a zip goes to a temp file because reading a zip needs random access).
 * The ingest runs while the bytes arrive; indexing continues in the background job. The body is
 * counted as it streams and stopped at the total-size cap (INGEST_MAX_TOTAL_MB) — before any ingest
 * cap could see it, a zip would otherwise be written to disk whole. Answers 201 {snapshotUid}, 413
 * naming the cap and its variable, or another error naming what was wrong.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { PassThrough, type Readable } from "node:stream";
import busboy from "busboy";
import { actorFromHeaders, toHeaders } from "../../auth/auth.ts";
import type { Services } from "../../context.ts";
import { DomainError, invalid, HTTP_STATUS } from "../../errors.ts";
import { publicError } from "../../errors-public.ts";
import { declaresMoreThan, limitBody, sendJson, stopReading } from "../body.ts";
import {
  describeCap,
  IngestError,
  ingestError,
  ingestFiles,
  ingestFolder,
  ingestZip,
  resolveLimits,
  type IngestLimits,
  type IngestSummary,
  type UploadedFile,
} from "../../codebase/ingest/index.ts";
import { UPLOAD_SUMMARY_FILE } from "../../snapshots/job.ts";
import { snapshotDirs } from "../../snapshots/storage.ts";

export const UPLOAD_ROUTE = /^\/api\/projects\/([0-9a-f-]{36})\/upload$/i;
const KINDS = ["zip", "files", "folder"] as const;
type Kind = (typeof KINDS)[number];

/** Refusals that are about size: answered 413. */
const SIZE_CAPS = new Set(["cap_total_bytes", "cap_file_bytes"]);

const uploadTooLarge = (limits: IngestLimits) => () =>
  ingestError(
    "cap_total_bytes",
    `The upload is larger than ${describeCap(limits, "maxTotalBytes")}. Leave out data, dependencies and build output, or ask the operator to raise the cap.`,
  );

/** Multipart files as an async sequence, one at a time, each consumed before the next is parsed. */
function multipartFiles(body: Readable, headers: IncomingHttpHeaders): AsyncIterable<UploadedFile> {
  const parser = busboy({ headers, preservePath: true, limits: { fieldSize: 64 * 1024 } });
  const queue: (UploadedFile | Error | null)[] = [];
  let wake: (() => void) | null = null;
  const push = (item: UploadedFile | Error | null) => {
    queue.push(item);
    wake?.();
  };
  const inFlight = new Set<PassThrough>();
  parser.on("file", (_field, stream, info) => {
    // The browser sends the relative path (webkitRelativePath) as the file name with preservePath.
    const content = new PassThrough();
    inFlight.add(content);
    content.on("close", () => inFlight.delete(content));
    // A file destroyed (upload failed) before the ingest started reading it would otherwise be an
    // unhandled 'error'; the ingest still sees the error when it reads the file (the stream stays errored).
    content.on("error", () => undefined);
    stream.pipe(content);
    push({ relativePath: info.filename ?? "", content });
  });
  parser.on("error", (err) => push(err instanceof Error ? err : new Error(String(err))));
  parser.on("close", () => push(null));
  // A body that fails — over the cap, or the client hung up — never ends the parser: end the file
  // being read and the sequence with the error, so the ingest fails (and cleans up) instead of waiting.
  body.on("error", (err) => {
    for (const file of inFlight) file.destroy(err);
    push(err);
  });
  body.pipe(parser);
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof DomainError) throw item;
        if (item instanceof Error) throw invalid(`The upload could not be read: ${item.message}`);
        yield item;
      }
    },
  };
}

async function zipFromRequest(
  body: Readable,
  run: (zipPath: string) => Promise<IngestSummary>,
): Promise<IngestSummary> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "argus-upload-"));
  const zipPath = path.join(dir, "upload.zip");
  try {
    await pipeline(body, createWriteStream(zipPath));
    return await run(zipPath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function handleUpload(
  services: Pick<Services, "auth" | "config" | "log" | "queue" | "snapshots">,
  req: IncomingMessage,
  res: ServerResponse,
  projectUid: string,
): Promise<void> {
  const send = (status: number, body: unknown) => sendJson(res, status, body);
  const kind = new URL(req.url ?? "/", "http://x").searchParams.get("kind") as Kind | null;
  let snapshotId: string | null = null;
  try {
    if (req.method !== "POST") return send(405, { message: "Use POST to upload code." });
    if (!kind || !KINDS.includes(kind))
      throw invalid(`Say what is uploaded: ?kind=zip, files or folder (got ${kind ?? "nothing"}).`);
    const actor = await actorFromHeaders(services.auth, toHeaders(req.headers));
    const { project, actor: user } = await services.snapshots.projectForImport(actor, projectUid);
    const limits = resolveLimits(services.config.ingestLimits);
    const tooLarge = uploadTooLarge(limits);
    if (declaresMoreThan(req, limits.maxTotalBytes)) throw tooLarge();
    const label =
      kind === "zip"
        ? decodeURIComponent(String(req.headers["x-file-name"] ?? "archive.zip")).slice(0, 200)
        : `${kind} upload`;
    const snapshot = await services.snapshots.begin(project, user, kind, label);
    snapshotId = snapshot.id;
    const dirs = snapshotDirs(services.config.dataDir, project.id, snapshot.id);
    const dest = dirs.src;
    const onProgress = () => undefined;
    const body = limitBody(req, limits.maxTotalBytes, tooLarge);
    const summary =
      kind === "zip"
        ? await zipFromRequest(body, (zipPath) => ingestZip({ dest, zipPath, limits, onProgress }))
        : await (kind === "folder" ? ingestFolder : ingestFiles)({
            dest,
            files: multipartFiles(body, req.headers),
            limits,
            onProgress,
          });
    // A shared queue carries no file list (see QueuedSource): the worker reads it from the snapshot folder.
    if (services.queue.durable) await writeFile(path.join(dirs.base, UPLOAD_SUMMARY_FILE), JSON.stringify(summary));
    await services.queue.enqueue("snapshot.ingest", {
      snapshotId: snapshot.id,
      source: services.queue.durable ? { kind: "uploaded" } : { kind: "uploaded", summary },
    });
    send(201, { snapshotUid: snapshot.uid, files: summary.walk.files.length });
  } catch (err) {
    const status =
      err instanceof IngestError && SIZE_CAPS.has(err.code)
        ? 413
        : err instanceof DomainError
          ? HTTP_STATUS[err.kind]
          : 500;
    // Over a size cap the rest is not read (the connection closes after the answer); otherwise drain
    // what the client is still sending so it gets the answer.
    if (status === 413) stopReading(req);
    else req.resume();
    const { message } = publicError(err, { doing: "receiving the upload", log: services.log });
    if (snapshotId) await services.snapshots.fail(snapshotId, message);
    send(status, { message });
  }
}
