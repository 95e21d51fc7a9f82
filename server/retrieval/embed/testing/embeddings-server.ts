/**
 * A small OpenAI-compatible embeddings server for tests: POST <base>/embeddings with
 * {model, input: string[], encoding_format?, dimensions?} → {object: "list", data: [{index,
 * embedding}], model, usage}. Vectors are bags of words hashed into `dims` buckets and deliberately
 * NOT normalised (as some servers' are not), so texts sharing words are similar. Tests queue failures
 * (status, body, headers) that are served before normal answers, and can make the server misbehave
 * the ways real ones do: data out of order, base64 regardless of the request, a wrong dimension.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface EmbeddingsRequest {
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: unknown; encoding_format?: string; dimensions?: number };
}

export interface QueuedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface EmbeddingsServerOptions {
  dims?: number;
  /** Answer with data in reverse order (clients must use `index`). */
  reversed?: boolean;
  /** Answer base64 even when floats were asked for. */
  alwaysBase64?: boolean;
  /** Refuse requests with more inputs than this (TEI answers 413 over its batch limit). */
  maxBatch?: number;
  /** Return vectors of this length instead of dims. */
  wrongDims?: number;
}

export interface EmbeddingsServer {
  baseURL: string;
  requests: EmbeddingsRequest[];
  queue: QueuedReply[];
  options: EmbeddingsServerOptions;
  close(): Promise<void>;
}

export function bagOfWordsVector(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % dims]! += 3;
  }
  return v;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startEmbeddingsServer(options: EmbeddingsServerOptions = {}): Promise<EmbeddingsServer> {
  const requests: EmbeddingsRequest[] = [];
  const queue: QueuedReply[] = [];
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        "content-type": typeof body === "string" ? "text/plain" : "application/json",
        ...headers,
      });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    let body: EmbeddingsRequest["body"];
    try {
      body = JSON.parse(await readBody(req)) as EmbeddingsRequest["body"];
    } catch {
      return send(400, { error: { message: "body is not JSON" } });
    }
    requests.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
    if (!req.url?.endsWith("/embeddings")) return send(404, { error: { message: `no route ${req.url}` } });
    const queued = queue.shift();
    if (queued) return send(queued.status, queued.body, queued.headers);
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (!Array.isArray(input) || input.some((t) => typeof t !== "string" || t === "")) {
      return send(400, { error: { message: "'$.input' is invalid: every input must be a non-empty string" } });
    }
    const o = options;
    if (o.maxBatch && input.length > o.maxBatch)
      return send(413, { error: `batch size ${input.length} > maximum allowed batch size ${o.maxBatch}` });
    const dims = o.wrongDims ?? body.dimensions ?? o.dims ?? 32;
    const base64 = o.alwaysBase64 || body.encoding_format === "base64";
    const data = input.map((text, index) => {
      const v = bagOfWordsVector(text as string, dims);
      return {
        object: "embedding",
        index,
        embedding: base64 ? Buffer.from(Float32Array.from(v).buffer).toString("base64") : v,
      };
    });
    if (o.reversed) data.reverse();
    send(200, { object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    queue,
    options,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
