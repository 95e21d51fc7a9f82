import { request } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PipelineServer } from "../servers/contract.ts";
import { createMcpServer } from "./client.ts";
import { McpServerError } from "./errors.ts";
import { serveMcpHttp, type HttpServing } from "./http.ts";
import { TEST_PARAMETERS, createTestServer } from "./test-support.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../..");
const fixture = path.join(here, "fixtures/stdio-server.ts");
const stdioSpec = { command: process.execPath, args: ["--import", "tsx", fixture], cwd: repoRoot };
const ctx = { cwd: repoRoot };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(check: () => boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return check();
}

/** The behaviour both transports must show. */
function roundTrip(open: () => PipelineServer) {
  let server: PipelineServer;
  beforeAll(() => {
    server = open();
  });
  afterAll(() => server.close());

  it("learns the signature from the server's build tool: $parameters, outputs, prompts, defaults; build itself hidden", async () => {
    const sig = await server.signature();
    expect(sig.tools.greet).toEqual({ input: { name: "$name" }, output: ["msg"] });
    expect(sig.tools.join).toEqual({ input: { q_ls: "q_ls", sep: "$sep" }, output: ["joined", "count"] });
    expect(sig.prompts.qa).toEqual({ input: { q_ls: "q_ls", template: "$template" }, output: ["prompt_ls"] });
    expect(sig.tools.build).toBeUndefined();
    expect(sig.parameters).toEqual(TEST_PARAMETERS);
  });

  it("calls a tool with arguments and returns the record keyed by its outputs", async () => {
    expect(await server.call("tool", "join", { q_ls: ["a", "b", "c"], sep: "-" }, ctx)).toEqual({
      joined: "a-b-c",
      count: 3,
    });
    expect(await server.call("tool", "greet", { name: "Ada" }, ctx)).toEqual({ msg: "Hello, Ada!" });
  });

  it("renders a prompt: list arguments survive MCP's string-only prompt arguments; one user message per item", async () => {
    const out = await server.call("prompt", "qa", { q_ls: ["why?", "how?"], template: "Q={question}" }, ctx);
    expect(out).toEqual({
      prompt_ls: [
        { role: "user", content: { type: "text", text: "Q=why?" } },
        { role: "user", content: { type: "text", text: "Q=how?" } },
      ],
    });
  });

  it("turns an error result into an error naming the server and the tool", async () => {
    const err = await server.call("tool", "fail", {}, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpServerError);
    expect((err as Error).message).toMatch(
      /MCP server `testkit` .*tool `fail` failed: deliberate failure for the test/,
    );
  });

  it("an unknown tool is an error naming it, not a crash", async () => {
    await expect(server.call("tool", "nope", {}, ctx)).rejects.toThrow(/tool `nope` failed: .*no tool `nope`/);
  });

  it("forwards streamed tokens to ctx.onToken", async () => {
    const tokens: string[] = [];
    const out = await server.call(
      "tool",
      "stream",
      { text: "one two three" },
      { ...ctx, onToken: (t) => tokens.push(t) },
    );
    expect(out).toEqual({ text: "one two three" });
    expect(tokens).toEqual(["one", "two", "three"]);
  });

  it("aborts a running call through ctx.signal, and the server stays usable", async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 150);
    const err = await server
      .call("tool", "slow", { ms: 20_000 }, { ...ctx, signal: ac.signal })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    expect((err as Error).message).toMatch(/tool `slow` was cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await server.call("tool", "greet", { name: "again" }, ctx)).toEqual({ msg: "Hello, again!" });
  });
}

describe("external MCP server over stdio", () => {
  roundTrip(() => createMcpServer(stdioSpec, { name: "testkit" }));

  it("the tool lists alone (no build) give the same signature", async () => {
    const server = createMcpServer(stdioSpec, { name: "testkit", discovery: "list" });
    try {
      const sig = await server.signature();
      expect(sig.tools.join).toEqual({ input: { q_ls: "q_ls", sep: "$sep" }, output: ["joined", "count"] });
      expect(sig.prompts.qa?.output).toEqual(["prompt_ls"]);
      expect(sig.parameters).toEqual(TEST_PARAMETERS);
    } finally {
      await server.close();
    }
  });

  it('discovery "build" runs the build tool: given parameters go into the file it reads, its defaults fill the rest', async () => {
    const server = createMcpServer(stdioSpec, { name: "testkit", discovery: "build", parameters: { name: "Custom" } });
    try {
      const sig = await server.signature();
      // The listing path would return the given parameters unchanged; only the build tool merges in its defaults.
      expect(sig.parameters).toEqual({ ...TEST_PARAMETERS, name: "Custom" });
      expect(sig.tools.greet).toEqual({ input: { name: "$name" }, output: ["msg"] });
    } finally {
      await server.close();
    }
  });

  it("gives the child only PATH, HOME, LANG and the spec's env, not the parent's secrets", async () => {
    process.env.ARGUS_TEST_SECRET = "s3cret";
    const server = createMcpServer(
      { ...stdioSpec, env: { EXTRA_SETTING: "on" } },
      { name: "testkit", discovery: "list" },
    );
    try {
      const { env } = (await server.call("tool", "env", {}, ctx)) as { env: Record<string, string> };
      expect(env.ARGUS_TEST_SECRET).toBeUndefined();
      expect(env.EXTRA_SETTING).toBe("on");
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.ARGUS_TEST_SECRET;
      await server.close();
    }
  });

  it("a child that dies mid-call gives a clear error with its last stderr, and later calls say so", async () => {
    const server = createMcpServer(stdioSpec, { name: "testkit", discovery: "list" });
    try {
      const err = await server.call("tool", "crash", {}, ctx).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpServerError);
      expect((err as McpServerError).failure).toBe("exited");
      expect((err as Error).message).toMatch(
        /MCP server `testkit` \(.*stdio-server\.ts\) exited while running tool `crash`/,
      );
      expect((err as Error).message).toMatch(/crashing on purpose/);
      await expect(server.call("tool", "greet", { name: "x" }, ctx)).rejects.toThrow(/exited before tool `greet`/);
    } finally {
      await server.close();
    }
  });

  it("close() ends the child process", async () => {
    const server = createMcpServer(stdioSpec, { name: "testkit", discovery: "list" });
    const { pid } = (await server.call("tool", "pid", {}, ctx)) as { pid: number };
    expect(pid).not.toBe(process.pid);
    expect(alive(pid)).toBe(true);
    await server.close();
    expect(await eventually(() => !alive(pid))).toBe(true);
    await expect(server.call("tool", "pid", {}, ctx)).rejects.toThrow(/is closed/);
  });

  it("a child that exits during start-up is a clear error with its stderr", async () => {
    const server = createMcpServer(
      { command: process.execPath, args: ["-e", "console.error('missing config file'); process.exit(1)"] },
      { name: "dies" },
    );
    await expect(server.signature()).rejects.toThrow(
      /MCP server `dies` \(.*\) exited during start-up, before the MCP handshake\nLast output on stderr:\nmissing config file/,
    );
    await server.close();
  });

  it("a command that does not exist is a clear error", async () => {
    const server = createMcpServer({ command: "argus-no-such-mcp-server" }, { name: "ghost" });
    await expect(server.signature()).rejects.toThrow(
      /MCP server `ghost` \(argus-no-such-mcp-server\) could not start: command `argus-no-such-mcp-server` not found/,
    );
    await server.close();
  });
});

describe("external MCP server over Streamable HTTP", () => {
  let serving: HttpServing;
  beforeAll(async () => {
    serving = await serveMcpHttp(createTestServer(), { port: 0 });
  });
  afterAll(() => serving.close());

  roundTrip(() => createMcpServer({ url: serving.url }, { name: "testkit" }));

  it("an address nobody listens on is a clear error", async () => {
    const dead = await serveMcpHttp(createTestServer(), { port: 0 });
    await dead.close();
    const server = createMcpServer({ url: dead.url }, { name: "remote", connectTimeoutMs: 5000 });
    await expect(server.signature()).rejects.toThrow(
      /MCP server `remote` \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: .*ECONNREFUSED/,
    );
    await server.close();
  });

  it("beyond maxSessions the least recently used session is closed; its client starts a new session and the call still succeeds", async () => {
    const small = await serveMcpHttp(createTestServer(), { port: 0, maxSessions: 1 });
    const first = createMcpServer({ url: small.url }, { name: "first", discovery: "list" });
    const second = createMcpServer({ url: small.url }, { name: "second", discovery: "list" });
    try {
      expect(await first.call("tool", "greet", { name: "A" }, ctx)).toEqual({ msg: "Hello, A!" });
      expect(await second.call("tool", "greet", { name: "B" }, ctx)).toEqual({ msg: "Hello, B!" });
      // first's session was evicted for second's: the server answers 404 and the client reconnects.
      expect(await first.call("tool", "greet", { name: "A again" }, ctx)).toEqual({ msg: "Hello, A again!" });
      expect(await second.call("tool", "greet", { name: "B again" }, ctx)).toEqual({ msg: "Hello, B again!" });
    } finally {
      await Promise.all([first.close(), second.close()]);
      await small.close();
    }
  });

  it("refuses a request whose Host is not the loopback address (DNS rebinding)", async () => {
    // fetch will not send a foreign Host header; node:http will.
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const res = await new Promise<{ status: number }>((resolve, reject) => {
      const req = request(
        serving.url,
        {
          method: "POST",
          headers: {
            host: "evil.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (r) => {
          r.resume();
          resolve({ status: r.statusCode ?? 0 });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(res.status).toBe(403);
  });
});
