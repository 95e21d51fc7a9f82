import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createMcpServer } from "../pipelines/mcp/client.ts";
import { runMcpCli, type McpCliIo } from "./mcp.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ctx = { cwd: repoRoot };

/** Runs the CLI in-process until `stop` is called; resolves the URL it prints in --http mode. */
function start(argv: string[]) {
  const err: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  let announce!: (url: string) => void;
  const url = new Promise<string>((r) => (announce = r));
  const io: McpCliIo = {
    cwd: repoRoot,
    err: (s) => {
      err.push(s);
      const m = /at (http:\/\/\S+)/.exec(s);
      if (m) announce(m[1]!);
    },
    untilStopped: () => stopped,
  };
  const code = runMcpCli(argv, io);
  return { code, url, err, stop };
}

describe("argus mcp serve", () => {
  it("serves a built-in server over Streamable HTTP: its signature and its tools work from an MCP client", async () => {
    const cli = start(["serve", "sayhello", "--http", "0"]);
    const url = await Promise.race([
      cli.url,
      cli.code.then((c) => Promise.reject(new Error(`exited ${c}: ${cli.err.join("")}`))),
    ]);
    const client = createMcpServer({ url }, { name: "sayhello" });
    try {
      const sig = await client.signature();
      expect(sig.tools.greet).toEqual({ input: { name: "$name" }, output: ["msg"] });
      expect(sig.parameters).toEqual({ name: "UltraRAG v3" });
      expect(await client.call("tool", "greet", { name: "MCP" }, ctx)).toEqual({ msg: "Hello, MCP!" });
    } finally {
      await client.close();
      cli.stop();
    }
    expect(await cli.code).toBe(0);
  });

  it("serves over stdio as a child process (`node server/cli/index.ts mcp serve sayhello`)", async () => {
    const client = createMcpServer(
      {
        command: process.execPath,
        args: ["--import", "tsx", "server/cli/index.ts", "mcp", "serve", "sayhello"],
        cwd: repoRoot,
      },
      { name: "sayhello" },
    );
    try {
      expect((await client.signature()).tools.greet?.output).toEqual(["msg"]);
      expect(await client.call("tool", "greet", {}, ctx)).toEqual({ msg: "Hello, UltraRAG v3!" });
    } finally {
      await client.close();
    }
  });

  it("usage errors exit 2 with a message saying what to do", async () => {
    for (const [argv, message] of [
      [["serve"], /Name the server to serve/],
      [["serve", "no_such_server"], /`no_such_server` is not a built-in server; built-ins: .*sayhello/],
      [["serve", "sayhello", "--http", "eighty"], /--http wants a port number/],
      [["serve", "sayhello", "--host", "0.0.0.0"], /--host only applies with --http/],
      [["list"], /Unknown mcp command "list"/],
    ] as const) {
      const cli = start([...argv]);
      expect(await cli.code).toBe(2);
      expect(cli.err.join("")).toMatch(message);
    }
  });
});
