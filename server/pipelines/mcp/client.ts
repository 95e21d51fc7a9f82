/**
 * createMcpServer: a PipelineServer backed by an external MCP server — a local process over stdio or a
 * Streamable HTTP endpoint — so the engine runs its tools exactly like a built-in server's.
 *
 * The connection opens on first use and is kept until close(). The child gets PATH, HOME and LANG plus
 * the spec's `env` (the SDK also passes LOGNAME, SHELL, TERM, USER), never the parent's secrets unless
 * `inheritEnv` asks. Every failure becomes an McpServerError naming the server and the tool.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import type { ServerSignature } from "../dsl/schema.ts";
import type { CallContext, PipelineServer } from "../servers/contract.ts";
import { McpServerError, OutputTail } from "./errors.ts";
import { encodePromptArgs, errorText, promptMessages, toolResultToRecord } from "./results.ts";
import {
  BUILD_TOOL,
  DEFAULT_PROMPT_OUTPUT,
  PARAMETERS_META,
  listedPromptSchema,
  listedToolSchema,
  signatureFromListings,
  signatureFromServerYaml,
} from "./signature.ts";
import { describeSpec, isHttpSpec, mcpServerSpecSchema, type McpServerSpec, type McpServerSpecInput } from "./spec.ts";
import { childProcessEnv } from "../../config.ts";

export interface McpServerOptions {
  /** The server's name in messages and in `PipelineServer.name` (the alias or the `servers:` value). */
  name: string;
  /** Where a relative `cwd` of a stdio spec resolves (the pipeline's working directory). */
  cwd?: string;
  /**
   * The server's default parameters (its parameter.yaml, when the pipeline has one for it): written
   * into the parameter file its `build` tool reads (so UltraRAG's auto-`$` applies) and returned as
   * the signature's `parameters`.
   */
  parameters?: Record<string, unknown>;
  /**
   * How to learn the signature: "auto" (build tool when it can share files with us, else the tool
   * lists), "build" (build tool or fail), "list" (tool lists only).
   */
  discovery?: "auto" | "build" | "list";
  /** Per tool/prompt call, in total. Default 10 minutes (a batch of LLM generations is slow). */
  timeoutMs?: number;
  /** Connecting and signature discovery. Default 60 s (a Python server importing torch is slow). */
  connectTimeoutMs?: number;
  /** Each chunk the child writes to stderr (it is otherwise only kept for error messages). */
  onStderr?: (chunk: string) => void;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
const BASE_ENV = ["PATH", "HOME", "LANG"];

const listToolsSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const listPromptsSchema = z.looseObject({ prompts: z.array(z.unknown()), nextCursor: z.string().optional() });

interface Connection {
  client: Client;
  http?: StreamableHTTPClientTransport;
  /** Set when the transport closed without close() being called: the process exited or the server hung up. */
  lost: boolean;
  /** progress token → the running call's ctx.onToken. */
  streams: Map<string, (text: string) => void>;
}

export function createMcpServer(
  specInput: McpServerSpecInput | McpServerSpec,
  options: McpServerOptions,
): PipelineServer {
  const spec = mcpServerSpecSchema.parse(specInput);
  const label = `MCP server \`${options.name}\` (${describeSpec(spec)})`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const stderr = new OutputTail();
  let connection: Promise<Connection> | undefined;
  let signature: Promise<ServerSignature> | undefined;
  let closed = false;
  let streamSeq = 0;

  const lostError = (what: string) =>
    new McpServerError(
      "exited",
      `${label} ${isHttpSpec(spec) ? "closed the connection" : "exited"} ${what}${stderr.suffix()}`,
    );

  async function connect(): Promise<Connection> {
    const client = new Client({ name: "argus", version: "0.1.0" }, { capabilities: {} });
    const conn: Connection = { client, lost: false, streams: new Map() };
    // Tokens arrive as progress notifications with a `message`. Our own handler, keyed by our own
    // token: the SDK's drops progress that shares a read with the response (the response handler runs
    // first and forgets the request), while this one runs before the awaiting call resumes.
    client.setNotificationHandler(ProgressNotificationSchema, (n) => {
      const text = n.params.message;
      if (text) conn.streams.get(String(n.params.progressToken))?.(text);
    });
    client.onclose = () => {
      if (!closed) conn.lost = true;
    };
    // Errors also arrive as rejected requests; without a handler the SDK logs them to the console.
    client.onerror = () => undefined;
    let transport: StdioClientTransport | StreamableHTTPClientTransport;
    if (isHttpSpec(spec)) {
      transport = conn.http = new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: spec.headers },
      });
    } else {
      const env: Record<string, string> = {};
      const parent = childProcessEnv();
      for (const k of spec.inheritEnv ? Object.keys(parent) : BASE_ENV)
        if (parent[k] !== undefined) env[k] = parent[k]!;
      const stdio = new StdioClientTransport({
        command: spec.command,
        args: spec.args,
        env: { ...env, ...spec.env },
        cwd: spec.cwd ? path.resolve(options.cwd ?? process.cwd(), spec.cwd) : options.cwd,
        stderr: "pipe",
      });
      stdio.stderr?.on("data", (chunk: Buffer) => {
        stderr.push(chunk);
        options.onStderr?.(chunk.toString());
      });
      transport = stdio;
    }
    try {
      await client.connect(transport, { timeout: connectTimeoutMs });
    } catch (err) {
      await new Promise((r) => setImmediate(r)); // let the last stderr chunk arrive
      await client.close().catch(() => undefined);
      throw connectError(err);
    }
    return conn;
  }

  function connectError(err: unknown): McpServerError {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e?.code ?? e?.cause?.code;
    if (!isHttpSpec(spec) && code === "ENOENT") {
      return new McpServerError(
        "connect",
        `${label} could not start: command \`${spec.command}\` not found (check the command in the pipeline's \`servers:\` entry and that it is on PATH)`,
        { cause: err },
      );
    }
    if (!isHttpSpec(spec) && err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      return new McpServerError(
        "exited",
        `${label} exited during start-up, before the MCP handshake${stderr.suffix()}`,
        { cause: err },
      );
    }
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return new McpServerError(
        "timeout",
        `${label} did not finish the MCP handshake within ${connectTimeoutMs / 1000} s${stderr.suffix()}`,
        { cause: err },
      );
    }
    const detail = [e?.message, e?.cause?.code ?? e?.cause?.message].filter(Boolean).join(": ");
    return new McpServerError("connect", `${label} could not be reached: ${detail || String(err)}${stderr.suffix()}`, {
      cause: err,
    });
  }

  async function open(): Promise<Connection> {
    if (closed) throw new McpServerError("exited", `${label} is closed`);
    connection ??= connect();
    try {
      return await connection;
    } catch (err) {
      connection = undefined; // a later call may retry (the server may have come up)
      throw err;
    }
  }

  async function listAll(conn: Connection, method: "tools/list" | "prompts/list"): Promise<unknown[]> {
    const out: unknown[] = [];
    let cursor: string | undefined;
    // Page limit: a server that keeps returning cursors cannot hang discovery.
    for (let page = 0; page < 100; page++) {
      const params = cursor ? { cursor } : {};
      if (method === "tools/list") {
        const r = await conn.client.request({ method, params }, listToolsSchema, { timeout: connectTimeoutMs });
        out.push(...r.tools);
        cursor = r.nextCursor;
      } else {
        const r = await conn.client.request({ method, params }, listPromptsSchema, { timeout: connectTimeoutMs });
        out.push(...r.prompts);
        cursor = r.nextCursor;
      }
      if (!cursor) break;
    }
    return out;
  }

  /** Only a server on this machine can write a file we then read: a child process, or HTTP on loopback. */
  function sharesFiles(): boolean {
    if (!isHttpSpec(spec)) return true;
    const host = new URL(spec.url).hostname;
    return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
  }

  async function viaBuild(conn: Connection, defaults: Record<string, unknown>): Promise<ServerSignature> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "argus-mcp-build-"));
    try {
      const parameterFile = path.join(dir, "parameter.yaml");
      // UltraRAG's build insists that `path` (the server's code) exists; point it at a file that does.
      // (A directory's own `path:` — a URL, a script relative to somewhere else — is restored below.)
      await writeFile(parameterFile, stringifyYaml({ ...defaults, path: parameterFile }));
      const result = await conn.client.callTool(
        { name: BUILD_TOOL, arguments: { parameter_file: parameterFile } },
        undefined,
        { timeout: connectTimeoutMs },
      );
      if (result.isError) throw new Error(errorText(result));
      const serverYaml = parseYaml(await readFile(path.join(dir, "server.yaml"), "utf8"), { maxAliasCount: 100 });
      // Our own build tool adds its defaults to the parameter file; UltraRAG's leaves it as written.
      const written = (parseYaml(await readFile(parameterFile, "utf8"), { maxAliasCount: 100 }) ?? {}) as Record<
        string,
        unknown
      >;
      if (defaults.path === undefined) delete written.path;
      else written.path = defaults.path;
      return signatureFromServerYaml(serverYaml, written);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function discover(): Promise<ServerSignature> {
    const conn = await open();
    const mode = options.discovery ?? "auto";
    try {
      const tools = (await listAll(conn, "tools/list")).flatMap((t) => parsed(listedToolSchema, t));
      const prompts = conn.client.getServerCapabilities()?.prompts
        ? (await listAll(conn, "prompts/list")).flatMap((p) => parsed(listedPromptSchema, p))
        : [];
      const published = tools.find((t) => t.name === BUILD_TOOL)?._meta?.[PARAMETERS_META];
      const defaults = options.parameters ?? (isPlainObject(published) ? published : {});
      const hasBuild = tools.some((t) => t.name === BUILD_TOOL);
      if (mode !== "list" && hasBuild && sharesFiles()) {
        try {
          return await viaBuild(conn, defaults);
        } catch (err) {
          if (mode === "build") throw err;
          if (conn.lost) throw err;
          // A build tool that is not UltraRAG's (or fails): the listings still describe the server.
        }
      } else if (mode === "build") {
        throw new Error(hasBuild ? "its build tool writes files on another machine" : "it has no `build` tool");
      }
      return signatureFromListings(tools, prompts, defaults);
    } catch (err) {
      if (err instanceof McpServerError) throw err;
      if (conn.lost) throw lostError("while listing its tools");
      throw new McpServerError(
        "discovery",
        `${label}: could not learn its tools: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  function callError(err: unknown, what: string, ctx: CallContext, conn: Connection): McpServerError {
    if (err instanceof McpServerError) return err;
    if (ctx.signal?.aborted) return new McpServerError("aborted", `${label}: ${what} was cancelled`, { cause: err });
    if (conn.lost || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed))
      return lostError(`while running ${what}`);
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return new McpServerError(
        "timeout",
        `${label}: ${what} did not answer within ${timeoutMs / 1000} s (raise timeoutMs if it is expected to take longer)`,
        { cause: err },
      );
    }
    const message =
      err instanceof McpError
        ? err.message.replace(/^MCP error -?\d+: /, "")
        : err instanceof Error
          ? err.message
          : String(err);
    return new McpServerError("protocol", `${label}: ${what} failed: ${message}`, { cause: err });
  }

  async function attempt(
    conn: Connection,
    kind: "tool" | "prompt",
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
    sig: ServerSignature,
    retryable: boolean,
  ): Promise<Record<string, unknown>> {
    const what = `${kind} \`${name}\``;
    if (conn.lost) throw lostError(`before ${what} (an earlier call ended it)`);
    const entry = (kind === "prompt" ? sig.prompts : sig.tools)[name];
    // Yield once so a pending stderr chunk of a crash is in the tail before we report it.
    const settle = <T>(p: Promise<T>) =>
      p.catch(async (err: unknown) => {
        if (retryable && sessionGone(err)) throw err;
        await new Promise((r) => setImmediate(r));
        throw callError(err, what, ctx, conn);
      });
    const request = { signal: ctx.signal, timeout: timeoutMs };
    const token = ctx.onToken ? `argus-${++streamSeq}` : undefined;
    const _meta = token ? { progressToken: token } : undefined;
    if (token) conn.streams.set(token, ctx.onToken!);
    try {
      if (kind === "prompt") {
        const result = await settle(conn.client.getPrompt({ name, arguments: encodePromptArgs(args), _meta }, request));
        const output = entry?.output[0] ?? DEFAULT_PROMPT_OUTPUT;
        return { [output]: promptMessages(result) };
      }
      const result = await settle(conn.client.callTool({ name, arguments: args, _meta }, undefined, request));
      if (result.isError) throw new McpServerError("tool_error", `${label}: ${what} failed: ${errorText(result)}`);
      return toolResultToRecord(result, entry?.output ?? [], `${label}: ${what}`);
    } finally {
      if (token) conn.streams.delete(token);
    }
  }

  return {
    name: options.name,

    signature() {
      signature ??= discover().catch((err: unknown) => {
        signature = undefined;
        throw err;
      });
      return signature;
    },

    async call(kind, name, args, ctx) {
      const sig = await this.signature();
      try {
        return await attempt(await open(), kind, name, args, ctx, sig, isHttpSpec(spec));
      } catch (err) {
        // The HTTP server forgot our session (restart, eviction): it never ran the call, so start a
        // new session and send it once more, as the MCP spec asks of clients on 404.
        if (!sessionGone(err)) throw err;
        const stale = connection;
        connection = undefined;
        void stale?.then((c) => c.client.close()).catch(() => undefined);
        return attempt(await open(), kind, name, args, ctx, sig, false);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      const pending = connection;
      connection = undefined;
      const conn = await pending?.catch(() => undefined);
      if (!conn) return;
      // Tell an HTTP server to drop the session; a stdio child gets stdin closed, then SIGTERM, then SIGKILL.
      await conn.http?.terminateSession().catch(() => undefined);
      await conn.client.close().catch(() => undefined);
    },
  };
}

/** A Streamable HTTP 404: the server no longer knows our session. */
const sessionGone = (err: unknown) => err instanceof StreamableHTTPError && err.code === 404;

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T>[] {
  const r = schema.safeParse(value);
  return r.success ? [r.data] : [];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
