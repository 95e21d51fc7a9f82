import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runScriptedLlmCli } from "./cli.ts";

const dir = mkdtempSync(path.join(tmpdir(), "scripted-llm-"));
const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { log: (l: string) => out.push(l), error: (l: string) => err.push(l) } };
};

describe("argus dev scripted-llm", () => {
  it("serves the script on the given port until stopped, printing base URLs and recording requests", async () => {
    const script = path.join(dir, "script.json");
    const record = path.join(dir, "requests.jsonl");
    writeFileSync(script, JSON.stringify({ rules: [{ match: "ping", text: "pong" }] }));
    const { out, io } = capture();
    const stop = new AbortController();
    let url = "";
    const listening = new Promise<void>((resolve) => {
      Object.assign(io, { onListening: (u: string) => ((url = u), resolve()), signal: stop.signal });
    });
    const done = runScriptedLlmCli(["--script", script, "--port", "0", "--record", record], io);
    await listening;

    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer secret" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "ping" }] }),
    });
    expect((await res.json()).choices[0].message.content).toBe("pong");
    stop.abort();
    expect(await done).toBe(0);

    expect(out).toContain(`  ANTHROPIC_BASE_URL=${url}`);
    expect(out).toContain(`  OPENAI_BASE_URL=${url}/v1`);
    const recorded = JSON.parse(readFileSync(record, "utf8").trim());
    expect(recorded).toMatchObject({
      api: "chat",
      rule: 0,
      lastUserText: "ping",
      headers: { authorization: "[redacted]" },
    });
  });

  it("exits 2 with a readable message on bad input", async () => {
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ rules: [{ chunkDelayMs: -1 }] }));
    const a = capture();
    expect(await runScriptedLlmCli(["--script", bad], a.io)).toBe(2);
    expect(a.err[0]).toMatch(/Cannot use script .*bad\.json:\n.*chunkDelayMs/s);

    const b = capture();
    expect(await runScriptedLlmCli([], b.io)).toBe(2);
    expect(b.err[0]).toMatch(/^Missing --script/);

    const c = capture();
    expect(await runScriptedLlmCli(["--script", bad, "--port", "99999"], c.io)).toBe(2);
  });
});
