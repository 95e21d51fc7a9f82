/**
 * POST /api/knowledge/<uid>/upload — documents for a knowledge base, as multipart/form-data (any
 * field name, one part per file). Each file streams to the base's incoming/ folder while its SHA-256
 * is computed; nothing is held in memory. Caps (per file, per upload, files per upload) are checked
 * as the bytes arrive. Answers:
 *   201 {documents, rejected}  when at least one file was added (unsupported types are added as
 *                              skipped documents, with the reason);
 *   409 {message, rejected}    when every file was already in the base;
 *   400 / 401 / 403 / 404      with a message naming what was wrong.
 * Parsing and indexing continue in the base's queued job.
 */
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { actorFromHeaders, toHeaders } from "../../auth/auth.ts";
import type { Services } from "../../context.ts";
import { DomainError, invalid, HTTP_STATUS } from "../../errors.ts";
import { publicError } from "../../errors-public.ts";
import { declaresMoreThan, limitBody, PayloadTooLarge, sendJson, stopReading } from "../body.ts";
import type { KnowledgeService, ReceivedFile } from "../../knowledge/service.ts";
import { baseDirs } from "../../knowledge/storage.ts";

export const KNOWLEDGE_UPLOAD_ROUTE = /^\/api\/knowledge\/([0-9a-f-]{36})\/upload$/i;

export interface UploadLimits {
  maxFileBytes: number;
  maxUploadBytes: number;
  maxFiles: number;
}
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxFileBytes: 50 * 1024 * 1024,
  maxUploadBytes: 500 * 1024 * 1024,
  maxFiles: 100,
};

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

/** Multipart framing (boundaries, part headers) on top of the files' bytes, allowed beyond the upload cap. */
const FRAMING_ALLOWANCE = 1024 * 1024;

const uploadTooLarge = (limits: UploadLimits) =>
  new PayloadTooLarge(
    `This upload is larger than ${mb(limits.maxUploadBytes)}, the limit for one upload (KNOWLEDGE_MAX_UPLOAD_MB). Upload the documents in several batches, or ask the operator to raise the limit.`,
  );

/** The route, for server/http/handler.ts: true when the path was ours (and answered). */
export async function routeKnowledgeUpload(
  services: Pick<Services, "auth" | "config" | "log"> & { knowledge: KnowledgeService },
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<boolean> {
  const m = KNOWLEDGE_UPLOAD_ROUTE.exec(pathname);
  if (!m) return false;
  await handleKnowledgeUpload(services, req, res, m[1]!, {
    ...DEFAULT_UPLOAD_LIMITS,
    ...services.config.knowledgeUploadLimits,
  });
  return true;
}

export async function handleKnowledgeUpload(
  services: Pick<Services, "auth" | "config" | "log"> & { knowledge: KnowledgeService },
  req: IncomingMessage,
  res: ServerResponse,
  baseUid: string,
  limits: UploadLimits = DEFAULT_UPLOAD_LIMITS,
): Promise<void> {
  const send = (status: number, body: unknown) => sendJson(res, status, body, { "cache-control": "no-store" });
  try {
    if (req.method !== "POST") return send(405, { message: "Use POST to upload documents." });
    if (!/^multipart\/form-data/i.test(req.headers["content-type"] ?? ""))
      throw invalid("Send the documents as multipart/form-data, one part per file.");
    const actor = await actorFromHeaders(services.auth, toHeaders(req.headers));
    const base = await services.knowledge.baseForUpload(actor, baseUid);
    if (declaresMoreThan(req, limits.maxUploadBytes + FRAMING_ALLOWANCE)) throw uploadTooLarge(limits);
    const incoming = baseDirs(services.config.dataDir, base.id).incoming;
    await mkdir(incoming, { recursive: true });
    const { files, tooLarge } = await receive(req, incoming, limits);
    if (files.length + tooLarge.length === 0)
      throw invalid("The upload contained no files. Choose .txt, .md, .html, .pdf or .docx documents.");
    const outcome = await services.knowledge.addDocuments(base, files, tooLarge);
    if (outcome.documents.length > 0) return send(201, outcome);
    const allDuplicates = outcome.rejected.every((r) => r.reason === "duplicate");
    send(allDuplicates ? 409 : 400, { message: outcome.rejected.map((r) => r.message).join("\n"), ...outcome });
  } catch (err) {
    const status = err instanceof PayloadTooLarge ? 413 : err instanceof DomainError ? HTTP_STATUS[err.kind] : 500;
    // Over the cap the rest is not read (the connection closes after the answer); otherwise drain what
    // the client is still sending so it gets the answer.
    stopReading(req);
    if (status !== 413) req.resume();
    const { message } = publicError(err, { doing: "receiving the upload", log: services.log, context: { baseUid } });
    send(status, { message });
  }
}

interface Received {
  files: ReceivedFile[];
  tooLarge: { name: string; message: string }[];
}

/** Streams every file part to `dir`; on any error, removes what it wrote and rejects. */
function receive(req: IncomingMessage, dir: string, limits: UploadLimits): Promise<Received> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: "utf8",
        limits: {
          fileSize: limits.maxFileBytes,
          files: limits.maxFiles,
          fields: 20,
          fieldSize: 64 * 1024,
          parts: limits.maxFiles + 20,
        },
      });
    } catch (err) {
      reject(invalid(`The upload could not be read: ${(err as Error).message}.`));
      return;
    }
    const writes: Promise<(ReceivedFile & { truncated: boolean }) | null>[] = [];
    const written: string[] = [];
    // Files still being received: a failure (e.g. the client hung up) must end them, or their
    // writes never settle and the partial files are never removed.
    const inFlight = new Set<NodeJS.ReadableStream & { destroy(err?: Error): void }>();
    let failure: DomainError | null = null;
    const body = limitBody(req, limits.maxUploadBytes + FRAMING_ALLOWANCE, () => uploadTooLarge(limits));
    const fail = (err: DomainError) => {
      if (failure) return;
      failure = err;
      body.unpipe(parser);
      // Over the cap nothing more is read; any other failure drains the rest so the client gets the answer.
      stopReading(req);
      if (!(err instanceof PayloadTooLarge)) req.resume();
      for (const stream of inFlight) stream.destroy(new Error(err.message));
      finish();
    };
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      void Promise.allSettled(writes).then(async (results) => {
        if (failure) {
          await Promise.all(written.map((p) => rm(p, { force: true })));
          reject(failure);
          return;
        }
        const out: Received = { files: [], tooLarge: [] };
        for (const r of results) {
          if (r.status === "rejected") {
            await Promise.all(written.map((p) => rm(p, { force: true })));
            reject(invalid(`The upload was interrupted (${(r.reason as Error).message}). Try again.`));
            return;
          }
          const f = r.value;
          if (!f) continue;
          if (f.truncated) {
            await rm(f.path, { force: true });
            out.tooLarge.push({
              name: f.name,
              message: `${f.name} is larger than ${mb(limits.maxFileBytes)}, the limit for one document (KNOWLEDGE_MAX_FILE_MB). Split it, or keep only the text.`,
            });
          } else out.files.push({ name: f.name, path: f.path, bytes: f.bytes, sha256: f.sha256 });
        }
        resolve(out);
      });
    };

    parser.on("file", (_field, stream, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      const name = cleanName(info.filename);
      const target = path.join(dir, randomUUID());
      written.push(target);
      inFlight.add(stream);
      const hash = createHash("sha256");
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      const out = createWriteStream(target);
      const closed = new Promise<void>((resolve) => out.once("close", () => resolve()));
      writes.push(
        pipeline(stream, counter, out)
          .finally(async () => {
            inFlight.delete(stream);
            // A write stream destroyed while still opening creates its file afterwards: wait for
            // it to close, so the cleanup below removes a file that exists.
            await closed;
          })
          .then(
            () => ({ name, path: target, bytes, sha256: hash.digest("hex"), truncated: stream.truncated === true }),
            (err: unknown) => {
              if (failure) return null;
              throw err;
            },
          ),
      );
    });
    parser.on("filesLimit", () =>
      fail(invalid(`At most ${limits.maxFiles} files can be uploaded at once. Upload the rest in another batch.`)),
    );
    parser.on("partsLimit", () => fail(invalid("The upload has too many parts. Send only the files.")));
    parser.on("error", (err: Error) => fail(invalid(`The upload could not be read: ${err.message}. Try again.`)));
    parser.on("close", finish);
    body.on("error", (err) =>
      fail(err instanceof DomainError ? err : invalid("The upload was cancelled before it finished.")),
    );
    body.pipe(parser);
  });
}

/** The name shown for a document: the base name only, control characters out, at most 200 characters. */
export function cleanName(raw: string | undefined): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  let cleaned = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (cleaned.length > 200) {
    // Keep the extension: it decides the parser.
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(cleaned)?.[0] ?? "";
    cleaned = cleaned.slice(0, 200 - ext.length) + ext;
  }
  return cleaned || "document";
}
