/**
 * `argus mcp serve <server> --http <port>`: a PipelineServer over Streamable HTTP at `/mcp`. Each MCP
 * session (one per connecting client) gets its own protocol endpoint; all share the one server
 * instance, as clients of an UltraRAG HTTP server share its process.
 *
 * Bound to 127.0.0.1 by default, with the SDK's DNS-rebinding check (Host must be the loopback
 * address we listen on), so a web page in the user's browser cannot drive it. Binding elsewhere is an
 * explicit choice (`host`), and then anyone who can reach the port can call every tool.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { PipelineServer } from "../servers/contract.ts";
import { serveMcp, type McpServing, type ServeOptions } from "./serve.ts";

export interface HttpServeOptions extends Omit<ServeOptions, "advertisedPath"> {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Open sessions at most (default 64). A client that vanishes without ending its session (DELETE)
   * leaves it open, so a new session beyond the limit closes the least recently used one.
   */
  maxSessions?: number;
}

export interface HttpServing {
  /** e.g. http://127.0.0.1:43117/mcp */
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

function jsonError(res: ServerResponse, status: number, message: string) {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

export async function serveMcpHttp(server: PipelineServer, options: HttpServeOptions): Promise<HttpServing> {
  const host = options.host ?? "127.0.0.1";
  const maxSessions = options.maxSessions ?? 64;
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; serving: McpServing; lastSeen: number }
  >();
  let url = "";
  let allowedHosts: string[] | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/mcp")
      return jsonError(res, 404, "Not found: the MCP endpoint is /mcp");
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const session = sessions.get(sid);
      if (!session) return jsonError(res, 404, "Session not found: start a new one with an initialize request");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return jsonError(res, 405, "Start a session with a POST initialize request");
    if (sessions.size >= maxSessions) {
      const [oldestId, oldest] = [...sessions.entries()].reduce((a, b) => (b[1].lastSeen < a[1].lastSeen ? b : a));
      sessions.delete(oldestId);
      await oldest.serving.close().catch(() => undefined);
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: allowedHosts !== undefined,
      allowedHosts,
      onsessioninitialized: (id) => void sessions.set(id, { transport, serving, lastSeen: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const serving = await serveMcp(server, transport, { ...options, advertisedPath: url });
    await transport.handleRequest(req, res);
    // Not an initialize request: the transport answered 400 and no session exists to keep.
    if (!transport.sessionId) await serving.close();
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonError(res, 500, err instanceof Error ? err.message : String(err));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shown = host.includes(":") ? `[${host}]` : host;
  url = `http://${shown}:${port}/mcp`;
  if (LOOPBACK.has(host)) allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];

  return {
    url,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.serving.close().catch(() => undefined)));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
