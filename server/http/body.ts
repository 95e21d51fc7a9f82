/**
 * Upload bodies counted as they stream. Past the cap the stream fails at once and the request is no
 * longer read — no byte beyond the cap reaches the disk, and a client sending gigabytes is answered
 * 413 and disconnected instead of being drained. A declared Content-Length over the cap is refused
 * before a single byte is read.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Transform, type Readable } from "node:stream";
import { DomainError } from "../errors.ts";

/** A refusal for size: answered 413 (a DomainError of kind "invalid" anywhere else). */
export class PayloadTooLarge extends DomainError {
  readonly status = 413;
  constructor(message: string) {
    super("invalid", message);
    this.name = "PayloadTooLarge";
  }
}

/** True when the request announces more than maxBytes (chunked bodies announce nothing: they are counted). */
export function declaresMoreThan(req: IncomingMessage, maxBytes: number): boolean {
  const declared = Number(req.headers["content-length"]);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** The request body, failing with tooLarge() the moment more than maxBytes have arrived. */
export function limitBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Readable {
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) {
        stopReading(req);
        done(tooLarge());
        return;
      }
      done(null, chunk);
    },
  });
  // A client that hangs up mid-upload fails the body too (the consumer cleans up as for any error).
  req.on("aborted", () => counted.destroy(new Error("the connection closed before the upload finished")));
  // The error stays on the stream (a consumer attaching later still gets it); this listener only keeps a
  // hang-up while no consumer is attached (between two awaits, or after it gave up) from crashing the process.
  counted.on("error", () => undefined);
  return req.pipe(counted);
}

/** Reads no more of the request (unlike draining it, which would read all the client still sends). */
export function stopReading(req: IncomingMessage): void {
  req.unpipe();
  req.pause();
}

/**
 * Sends a JSON answer. The connection is closed after it when the request body was not read to its
 * end (a 413, or any answer given mid-upload): a client must not send its next request on a socket
 * that still carries the rest of this body — it would be reset (seen as ECONNRESET under load).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const unread = status === 413 || !res.req.complete;
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    ...(unread ? { connection: "close" } : {}),
    ...headers,
  });
  res.end(JSON.stringify(body));
}
