/**
 * What calling a pipeline tool through MCP costs: the same trivial tool (`noop`, returns its input)
 * called in-process through the PipelineServer contract (baseline), over stdio to a child process,
 * and over Streamable HTTP on loopback. Server start-up and signature discovery are excluded; each
 * transport gets a warm-up first. The pipelines bench imports measureMcpOverhead; `npm run bench --
 * mcp-overhead` runs it alone.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createMcpServer } from "../server/pipelines/mcp/client.ts";
import { serveMcpHttp } from "../server/pipelines/mcp/http.ts";
import { createTestServer } from "../server/pipelines/mcp/test-support.ts";
import type { PipelineServer } from "../server/pipelines/servers/contract.ts";
import { summarize, time } from "./_stats.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const fixture = path.join(repoRoot, "server/pipelines/mcp/fixtures/stdio-server.ts");

export interface McpOverhead {
  inProcessP50Ms: number;
  stdioP50Ms: number;
  httpP50Ms: number;
  /** Timed calls per transport (after a warm-up of a tenth as many). */
  calls: number;
}

async function sample(server: PipelineServer, calls: number) {
  const ctx = { cwd: repoRoot };
  const call = () => server.call("tool", "noop", { x: [1, 2, 3] }, ctx);
  await time(Math.max(5, Math.round(calls / 10)), call);
  return summarize(await time(calls, call));
}

async function measureAll(calls: number) {
  const inProcess = await sample(createTestServer(), calls);
  const stdioServer = createMcpServer(
    { command: process.execPath, args: ["--import", "tsx", fixture], cwd: repoRoot },
    { name: "bench", discovery: "list" },
  );
  let stdio;
  try {
    stdio = await sample(stdioServer, calls);
  } finally {
    await stdioServer.close();
  }
  const serving = await serveMcpHttp(createTestServer(), { port: 0 });
  const httpServer = createMcpServer({ url: serving.url }, { name: "bench", discovery: "list" });
  let http;
  try {
    http = await sample(httpServer, calls);
  } finally {
    await httpServer.close();
    await serving.close();
  }
  return { inProcess, stdio, http };
}

export async function measureMcpOverhead(calls = 300): Promise<McpOverhead> {
  const r = await measureAll(calls);
  return { inProcessP50Ms: r.inProcess.p50, stdioP50Ms: r.stdio.p50, httpP50Ms: r.http.p50, calls };
}

export default async function mcpOverhead() {
  const calls = 300;
  const r = await measureAll(calls);
  return {
    unit: "ms",
    calls,
    "trivial tool over stdio (child process, JSON-RPC)": r.stdio,
    "trivial tool over Streamable HTTP (loopback)": r.http,
    "baseline: the same tool in-process (PipelineServer.call)": r.inProcess,
  };
}
