/**
 * The connection to an external MCP server: a child process over stdio or a Streamable HTTP session,
 * opened on first use (again after a failed attempt), dropped when the server forgot the session,
 * and closed once. The child gets PATH, HOME and LANG plus the spec's `env`, never the parent's
 * secrets unless `inheritEnv` asks.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { childProcessEnv } from "../../config.ts";
import { McpServerError } from "./errors.ts";
import { isHttpSpec } from "./spec.ts";
import type { McpTarget } from "./target.ts";

const BASE_ENV = ["PATH", "HOME", "LANG"];

export interface Connection {
  client: Client;
  http?: StreamableHTTPClientTransport;
  /** Set when the transport closed without close() being called: the process exited or the server hung up. */
  lost: boolean;
  /** progress token → the running call's ctx.onToken. */
  streams: Map<string, (text: string) => void>;
}

export interface Connector {
  /** The connection, opened on first use; throws once the server is closed. */
  open(): Promise<Connection>;
  /** Forgets the connection (its client is closed in the background): the next open() starts anew. */
  reset(): void;
  /** Ends the connection for good. */
  close(): Promise<void>;
}

export function createConnector(t: McpTarget): Connector {
  let connection: Promise<Connection> | undefined;
  let closed = false;

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
    const transport = transportFor(t, conn);
    try {
      await client.connect(transport, { timeout: t.connectTimeoutMs });
    } catch (err) {
      await new Promise((r) => setImmediate(r)); // let the last stderr chunk arrive
      await client.close().catch(() => undefined);
      throw connectError(t, err);
    }
    return conn;
  }

  return {
    async open(): Promise<Connection> {
      if (closed) throw new McpServerError("exited", `${t.label} is closed`);
      connection ??= connect();
      try {
        return await connection;
      } catch (err) {
        connection = undefined; // a later call may retry (the server may have come up)
        throw err;
      }
    },

    reset() {
      const stale = connection;
      connection = undefined;
      void stale?.then((c) => c.client.close()).catch(() => undefined);
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

/** The transport for the spec: a Streamable HTTP session (kept on `conn.http`), or a child over stdio. */
function transportFor(
  { spec, options, stderr }: McpTarget,
  conn: Connection,
): StdioClientTransport | StreamableHTTPClientTransport {
  if (isHttpSpec(spec)) {
    return (conn.http = new StreamableHTTPClientTransport(new URL(spec.url), {
      requestInit: { headers: spec.headers },
    }));
  }
  const env: Record<string, string> = {};
  const parent = childProcessEnv();
  for (const k of spec.inheritEnv ? Object.keys(parent) : BASE_ENV) if (parent[k] !== undefined) env[k] = parent[k]!;
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
  return stdio;
}

function connectError({ spec, label, connectTimeoutMs, stderr }: McpTarget, err: unknown): McpServerError {
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
    return new McpServerError("exited", `${label} exited during start-up, before the MCP handshake${stderr.suffix()}`, {
      cause: err,
    });
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
