/**
 * A local HTTP server that speaks the Anthropic Messages, OpenAI Responses and Chat Completions wire
 * formats, answering from a script of ordered rules, and records every request. Tests point the real
 * SDKs at it (no keys, no network); `argus dev scripted-llm` runs the whole app against it.
 *
 * Base URLs: Anthropic SDK → `url`; OpenAI SDK (Responses and Chat Completions) → `url + "/v1"`.
 */
import { once } from "node:events";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type Api, type Rule, type ScriptInput, lastUserText, matches, parseScript } from "./script.ts";
import { type Reply, encodeError, encodeJson, encodeStream, frameToText } from "./wire.ts";

export interface RecordedRequest {
  api: Api | "models" | "unknown";
  method: string;
  path: string;
  /** Lower-cased; authorization and x-api-key replaced by "[redacted]" so records can be logged. */
  headers: Record<string, string>;
  body: Record<string, unknown>;
  lastUserText: string;
  /** Index of the rule that answered, -1 when none matched. */
  rule: number;
  at: number;
}

export interface ScriptedServer {
  url: string;
  anthropicBaseURL: string;
  openaiBaseURL: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces the rules and resets their use counts (the recorded requests stay). */
  setScript(script: ScriptInput): void;
  /** Clears the recorded requests and the rules' use counts. */
  reset(): void;
  close(): Promise<void>;
}

export interface ScriptedServerOptions {
  script: ScriptInput;
  port?: number;
  host?: string;
  /** Called with every recorded request (the CLI appends them to a file). */
  onRequest?: (r: RecordedRequest) => void;
  /** Called as each frame of a streamed reply is written (benchmarks time the model's first token). */
  onFrame?: (r: RecordedRequest, frame: string) => void;
}

const ROUTES: Array<[RegExp, Api]> = [
  [/\/messages$/, "anthropic"],
  [/\/responses$/, "responses"],
  [/\/chat\/completions$/, "chat"],
];

export async function startScriptedServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  let rules: Rule[] = parseScript(opts.script).rules;
  let uses: number[] = rules.map(() => 0);
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted-llm: ${(err as Error).message}` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0]!;
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return sendJson(res, 400, { error: { message: "scripted-llm: request body is not JSON" } });
    }
    const api = ROUTES.find(([re]) => re.test(path))?.[1];
    const record: RecordedRequest = {
      api: api ?? (path.endsWith("/models") ? "models" : "unknown"),
      method: req.method ?? "GET",
      path,
      headers: redact(req.headers),
      body,
      lastUserText: api ? lastUserText(api, body) : "",
      rule: -1,
      at: Date.now(),
    };
    requests.push(record);
    const model = typeof body.model === "string" ? body.model : "scripted";
    const index =
      api && req.method === "POST"
        ? rules.findIndex(
            (r, i) => (r.times === undefined || uses[i]! < r.times) && matches(r, api, model, record.lastUserText),
          )
        : -1;
    record.rule = index;
    opts.onRequest?.(record);

    if (req.method === "GET" && record.api === "models")
      return sendJson(res, 200, modelList(rules, "anthropic-version" in req.headers));
    if (!api || req.method !== "POST")
      return sendJson(res, 404, { error: { message: `scripted-llm: no route for ${req.method} ${path}` } });
    if (index < 0) {
      // 400, not 5xx: a missing rule is a broken test, and retrying it would only slow the failure down.
      return sendJson(
        res,
        400,
        encodeError(
          api,
          400,
          `scripted-llm: no rule matches the last user content ${JSON.stringify(record.lastUserText.slice(0, 200))}`,
        ),
      );
    }
    uses[index]!++;
    const rule = rules[index]!;
    if (rule.delayMs) await sleep(rule.delayMs);

    if (rule.status) {
      const headers: Record<string, string> =
        rule.retryAfter === undefined ? {} : { "retry-after": String(rule.retryAfter) };
      return sendJson(
        res,
        rule.status,
        encodeError(api, rule.status, rule.message ?? `scripted error ${rule.status}`),
        headers,
      );
    }
    const reply = buildReply(rule, model, raw.length, body, requests.length);
    if (body.stream !== true) return sendJson(res, 200, encodeJson(api, reply));
    await streamFrames(res, encodeStream(api, reply).map(frameToText), rule, (frame) => opts.onFrame?.(record, frame));
  }

  server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const host = opts.host && opts.host !== "0.0.0.0" ? opts.host : "127.0.0.1";
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    port,
    requests,
    setScript(script) {
      rules = parseScript(script).rules;
      uses = rules.map(() => 0);
    },
    reset() {
      requests.length = 0;
      uses = rules.map(() => 0);
    },
    async close() {
      server.closeAllConnections(); // stalled streams would otherwise keep close() waiting
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function buildReply(rule: Rule, model: string, requestChars: number, body: Record<string, unknown>, n: number): Reply {
  const textChunks =
    rule.text === undefined ? [] : Array.isArray(rule.text) ? rule.text : (rule.text.match(/\S+\s*|\s+/g) ?? []);
  const toolCalls = (rule.toolCalls ?? []).map((c, i) => {
    const json = c.arguments ?? JSON.stringify(c.input ?? {});
    return { id: c.id ?? `call_s${n}_${i}`, name: c.name, argumentChunks: split(json, c.chunks) };
  });
  const outChars = textChunks.join("").length + toolCalls.reduce((s, c) => s + c.argumentChunks.join("").length, 0);
  const u = rule.usage ?? {};
  return {
    model,
    thinking: rule.thinking,
    textChunks,
    toolCalls,
    stopReason: rule.stopReason ?? (toolCalls.length ? "tool_use" : "end_turn"),
    usage: {
      input: u.input ?? Math.ceil(requestChars / 4),
      output: u.output ?? Math.max(1, Math.ceil(outChars / 4)),
      cacheRead: u.cacheRead ?? 0,
      cacheWrite: u.cacheWrite ?? 0,
    },
    chatUsageChunk: (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
  };
}

/** Splits s into n pieces of nearly equal length (fewer when s is shorter than n). */
function split(s: string, n: number): string[] {
  if (s.length === 0) return [""];
  const size = Math.ceil(s.length / Math.min(n, s.length));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

async function streamFrames(res: ServerResponse, frames: string[], rule: Rule, onFrame: (frame: string) => void) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  let closed = false;
  res.on("close", () => (closed = true));
  for (const [i, frame] of frames.entries()) {
    if (closed) return;
    if (i === rule.cutAfter) {
      // Mid-body with no chunked terminator: the client sees the connection drop, as with a real cut.
      res.socket?.destroy();
      return;
    }
    if (i === rule.endAfter) break;
    if (i === rule.stallAfter) return; // leave it open and silent; close() or the client ends it
    // Wait for each write so a cut right after really delivered the frames before it.
    onFrame(frame);
    await new Promise<void>((resolve) => res.write(frame, () => resolve()));
    if (rule.chunkDelayMs) await sleep(rule.chunkDelayMs);
  }
  res.end();
}

function modelList(rules: Rule[], anthropic: boolean) {
  const ids = [...new Set(rules.map((r) => r.model).filter((m): m is string => !!m))];
  if (ids.length === 0) ids.push("scripted");
  if (anthropic) {
    return {
      data: ids.map((id) => ({ id, type: "model", display_name: id, created_at: "2025-01-01T00:00:00Z" })),
      has_more: false,
      first_id: ids[0],
      last_id: ids.at(-1),
    };
  }
  return { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" })) };
}

function redact(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = k === "authorization" || k === "x-api-key" ? "[redacted]" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
