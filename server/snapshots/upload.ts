/**
 * POST /api/projects/<uid>/upload?kind=zip|files|folder — code uploads stream from the request to
 * disk (busboy for multipart; a zip goes to a temp file because reading a zip needs random access).
 * The ingest runs while the bytes arrive; indexing continues in the background job. Answers
 * 201 {snapshotUid} or an error naming what was wrong.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { PassThrough } from "node:stream";
import busboy from "busboy";
import { actorFromHeaders, toHeaders } from "../auth/auth.ts";
import type { Services } from "../context.ts";
import { DomainError, invalid, HTTP_STATUS } from "../errors.ts";
import { publicError } from "../errors-public.ts";
import {
  ingestFiles,
  ingestFolder,
  ingestZip,
  resolveLimits,
  type IngestSummary,
  type UploadedFile,
} from "../codebase/ingest/index.ts";
import { INGEST_JOB, type IngestJob } from "./job.ts";
import { snapshotDirs } from "./storage.ts";

export const UPLOAD_ROUTE = /^\/api\/projects\/([0-9a-f-]{36})\/upload$/i;
const KINDS = ["zip", "files", "folder"] as const;
type Kind = (typeof KINDS)[number];

/** Multipart files as an async sequence, one at a time, each consumed before the next is parsed. */
function multipartFiles(req: IncomingMessage): AsyncIterable<UploadedFile> {
  const parser = busboy({ headers: req.headers, preservePath: true, limits: { fieldSize: 64 * 1024 } });
  const queue: (UploadedFile | Error | null)[] = [];
  let wake: (() => void) | null = null;
  const push = (item: UploadedFile | Error | null) => {
    queue.push(item);
    wake?.();
  };
  const inFlight = new Set<PassThrough>();
  parser.on("file", (_field, stream, info) => {
    // The browser sends the relative path (webkitRelativePath) as the file name with preservePath.
    const body = new PassThrough();
    inFlight.add(body);
    body.on("close", () => inFlight.delete(body));
    stream.pipe(body);
    push({ relativePath: info.filename ?? "", content: body });
  });
  parser.on("error", (err) => push(err instanceof Error ? err : new Error(String(err))));
  parser.on("close", () => push(null));
  // A client that hangs up mid-upload never ends the parser: end the file being read and the
  // sequence with an error, so the ingest fails (and cleans up) instead of waiting forever.
  req.on("aborted", () => {
    const err = new Error("the connection closed before the upload finished");
    for (const body of inFlight) body.destroy(err);
    push(err);
  });
  req.pipe(parser);
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof Error) throw invalid(`The upload could not be read: ${item.message}`);
        yield item;
      }
    },
  };
}

async function zipFromRequest(
  req: IncomingMessage,
  run: (zipPath: string) => Promise<IngestSummary>,
): Promise<IngestSummary> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "argus-upload-"));
  const zipPath = path.join(dir, "upload.zip");
  try {
    await pipeline(req, createWriteStream(zipPath));
    return await run(zipPath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function handleUpload(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  projectUid: string,
): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };
  const kind = new URL(req.url ?? "/", "http://x").searchParams.get("kind") as Kind | null;
  let snapshotId: string | null = null;
  try {
    if (req.method !== "POST") return send(405, { message: "Use POST to upload code." });
    if (!kind || !KINDS.includes(kind))
      throw invalid(`Say what is uploaded: ?kind=zip, files or folder (got ${kind ?? "nothing"}).`);
    const actor = await actorFromHeaders(services.auth, toHeaders(req.headers));
    const { project, actor: user } = await services.snapshots.projectForImport(actor, projectUid);
    const label =
      kind === "zip"
        ? decodeURIComponent(String(req.headers["x-file-name"] ?? "archive.zip")).slice(0, 200)
        : `${kind} upload`;
    const snapshot = await services.snapshots.begin(project, user, kind, label);
    snapshotId = snapshot.id;
    const dest = snapshotDirs(services.config.dataDir, project.id, snapshot.id).src;
    const limits = resolveLimits(services.config.ingestLimits);
    const onProgress = () => undefined;
    const summary =
      kind === "zip"
        ? await zipFromRequest(req, (zipPath) => ingestZip({ dest, zipPath, limits, onProgress }))
        : await (kind === "folder" ? ingestFolder : ingestFiles)({
            dest,
            files: multipartFiles(req),
            limits,
            onProgress,
          });
    services.queue.enqueue<IngestJob>(INGEST_JOB, { snapshotId: snapshot.id, source: { kind: "uploaded", summary } });
    send(201, { snapshotUid: snapshot.uid, files: summary.walk.files.length });
  } catch (err) {
    req.resume(); // drain what the client is still sending so it gets the answer
    const { message } = publicError(err, { doing: "receiving the upload", log: services.log });
    if (snapshotId) await services.snapshots.fail(snapshotId, message);
    send(err instanceof DomainError ? HTTP_STATUS[err.kind] : 500, { message });
  }
}
