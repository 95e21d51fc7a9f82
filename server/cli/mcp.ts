/**
 * `argus mcp serve <server> [--http <port>] [--host <addr>]` — exposes one of Argus's built-in pipeline
 * servers to any MCP client (Claude Desktop, UltraRAG, another Argus) over stdio (default) or
 * Streamable HTTP at `/mcp`. The server is opened as a pipeline run would open it: from the current
 * directory, with `servers/<name>/parameter.yaml` as its parameters when that file exists.
 *
 * In stdio mode stdout is the protocol: every message of ours goes to stderr.
 */
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serveMcpHttp } from "../pipelines/mcp/http.ts";
import { serveMcp } from "../pipelines/mcp/serve.ts";
import { ServerRegistry } from "../pipelines/registry.ts";
import type { PipelineServer } from "../pipelines/servers/contract.ts";
import { runCommand, UsageError } from "./usage.ts";

export const MCP_HELP = `Usage: argus mcp serve <server> [--http <port>] [--host <addr>]

  <server>   a built-in pipeline server: its name (retriever) or path (servers/retriever); parameters
             come from ./servers/<name>/parameter.yaml when it exists
  --http     serve Streamable HTTP on this port at /mcp (0 = any free port) instead of stdio
  --host     address to bind with --http (default 127.0.0.1; anything else lets the network call every tool)

Each tool takes its inputs by parameter name and returns its outputs as structured content; prompts
are MCP prompts; a \`build\` tool writes server.yaml + parameter.yaml for UltraRAG (see docs/mcp.md).`;

export interface McpCliIo {
  cwd: string;
  err: (s: string) => void;
  /** Resolves when the process should stop (signal, or stdin closed in stdio mode). */
  untilStopped: (mode: "stdio" | "http") => Promise<void>;
}

function waitForStop(mode: "stdio" | "http"): Promise<void> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
    // A stdio client ends the session by closing our stdin.
    if (mode === "stdio") process.stdin.once("end", () => resolve());
  });
}

const defaultIo = (): McpCliIo => ({
  cwd: process.cwd(),
  err: (s) => process.stderr.write(s),
  untilStopped: waitForStop,
});

export async function runMcpCli(argv: string[], io: McpCliIo = defaultIo()): Promise<number> {
  return runCommand("argus mcp", MCP_HELP, io.err, () => dispatch(argv, io));
}

/** Opens a built-in server by name or `servers/<name>` path; an external entry is refused (it already speaks MCP). */
export async function openBuiltin(name: string, cwd: string): Promise<PipelineServer> {
  const registry = new ServerRegistry({ cwd });
  const serverPath = /[/:]/.test(name) ? name : `servers/${name}`;
  const target = registry.resolve(serverPath);
  if (!target)
    throw new UsageError(`\`${name}\` is not a built-in server; built-ins: ${registry.builtinNames().join(", ")}`);
  if (target.kind !== "builtin")
    throw new UsageError(
      `\`${name}\` resolves to an external MCP server (${target.label}); clients can connect to it directly`,
    );
  return (await registry.open(name, serverPath)).server;
}

async function dispatch(argv: string[], io: McpCliIo): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { http: { type: "string" }, host: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const { positionals, values } = parsed;
  if (values.help) {
    io.err(`${MCP_HELP}\n`);
    return 0;
  }
  const [sub, name, ...extra] = positionals;
  if (sub !== "serve") throw new UsageError(sub ? `Unknown mcp command "${sub}"` : "Missing mcp command");
  if (!name) throw new UsageError("Name the server to serve, e.g. `argus mcp serve retriever`");
  if (extra.length) throw new UsageError(`Unexpected argument "${extra[0]}"`);
  if (values.host !== undefined && values.http === undefined) throw new UsageError("--host only applies with --http");
  let port: number | undefined;
  if (values.http !== undefined) {
    port = Number(values.http);
    if (!/^\d+$/.test(values.http) || port > 65535)
      throw new UsageError(`--http wants a port number (0–65535), got "${values.http}"`);
  }

  const server = await openBuiltin(name, io.cwd);
  try {
    if (port === undefined) {
      const serving = await serveMcp(server, new StdioServerTransport(), { cwd: io.cwd });
      io.err(`argus mcp: serving ${server.name} over stdio\n`);
      await io.untilStopped("stdio");
      await serving.close();
    } else {
      const serving = await serveMcpHttp(server, { port, ...(values.host ? { host: values.host } : {}), cwd: io.cwd });
      io.err(`argus mcp: serving ${server.name} at ${serving.url}\n`);
      await io.untilStopped("http");
      await serving.close();
    }
  } finally {
    await server.close();
  }
  return 0;
}
