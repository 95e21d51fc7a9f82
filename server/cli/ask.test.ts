/**
 * `argus ask` as a script runs it: a child process with the environment's model pointed at the
 * scripted server (Anthropic and OpenAI-compatible wire formats), the demo project as the folder.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScriptedServer } from "../llm/scripted/server.ts";
import { startServer as startScripted } from "../llm/test-support.ts";
import { DEMO_DIR } from "../review/index.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let llm: ScriptedServer;

beforeAll(async () => {
  llm = await startScripted([
    { match: "createHash", text: "In hashPassword, src/server.js:31-33 (MD5). Not in src/nowhere.js:1." },
    { match: "/where are passwords hashed/i", toolCalls: [{ name: "read_file", input: { path: "src/server.js" } }] },
    { match: "/is the key good/i", status: 401, message: "invalid x-api-key" },
  ]);
});
afterAll(() => llm?.close());

function argus(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/cli/index.ts", "ask", ...args], {
      cwd: ROOT,
      // Only what a shell would pass (no test database): the CLI as a script runs it.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        NODE_ENV: "production",
        LOG_LEVEL: "silent",
        ...env,
      },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

const anthropic = () => ({
  LLM_PROVIDER: "anthropic",
  ANTHROPIC_API_KEY: "sk-test",
  ANTHROPIC_BASE_URL: llm.url,
  LLM_MAX_RETRIES: "0",
});

describe("argus ask", () => {
  it("streams the answer with its tool calls and checked citations (Anthropic wire format)", async () => {
    const r = await argus([DEMO_DIR, "Where are passwords hashed?"], anthropic());
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("· read_file(path: src/server.js)");
    expect(r.out).toContain("In hashPassword, src/server.js:31-33 (MD5).");
    expect(r.out).toContain("✓ src/server.js:31-33");
    expect(r.out).toContain("✗ src/nowhere.js:1  (no such file in this code)");
  }, 90_000);

  it("prints one JSON object with --json (OpenAI-compatible wire format)", async () => {
    const r = await argus([DEMO_DIR, "where are passwords hashed?", "--json"], {
      LLM_PROVIDER: "openai-compatible",
      LLM_MODEL: "qwen3:8b",
      OPENAI_COMPATIBLE_BASE_URL: `${llm.url}/v1`,
    });
    expect(r.code, r.err).toBe(0);
    const body = JSON.parse(r.out) as { mode: string; answer: string; citations: { status: string }[]; usage: object };
    expect(body).toMatchObject({ mode: "model", answer: expect.stringContaining("hashPassword") });
    expect(body.citations.map((c) => c.status)).toEqual(["ok", "missing_file"]);
  }, 90_000);

  it("answers with search results when no model is configured", async () => {
    const r = await argus([DEMO_DIR, "where are passwords hashed?", "--json"], { ANTHROPIC_API_KEY: "" });
    expect(r.code, r.err).toBe(0);
    const body = JSON.parse(r.out) as { mode: string; answer: string; hits: { file: string }[] };
    expect(body.mode).toBe("search");
    expect(body.answer).toContain("Search results, no model");
    expect(body.hits[0]!.file).toBe("src/server.js");
  }, 90_000);

  it("exits 3 when the model fails and 2 on usage errors", async () => {
    const failed = await argus([DEMO_DIR, "Is the key good?"], anthropic());
    expect(failed.code).toBe(3);
    expect(failed.err).toContain("check the API key");
    const usage = await argus([DEMO_DIR, "  "], anthropic());
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("a question needs some text");
    expect((await argus([DEMO_DIR], anthropic())).code).toBe(2);
    expect((await argus(["/no/such/folder", "hi"], anthropic())).code).toBe(2);
  }, 120_000);
});
