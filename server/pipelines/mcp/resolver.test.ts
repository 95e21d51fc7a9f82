import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPipeline } from "../engine/run.ts";
import { serveMcpHttp, type HttpServing } from "./http.ts";
import { mcpExternalResolver } from "./resolver.ts";
import { createTestServer } from "./test-support.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
// Absolute, because the child starts in the run's directory, where no node_modules is.
const stdioRef = `stdio:${process.execPath} --import ${import.meta.resolve("tsx")} ${path.join(here, "fixtures/stdio-server.ts")}`;

let cwd: string;
let http: HttpServing;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), "argus-mcp-pipeline-"));
  http = await serveMcpHttp(createTestServer(), { port: 0 });
});
afterAll(async () => {
  await http.close();
  await rm(cwd, { recursive: true, force: true });
});

describe("a pipeline whose servers are external MCP servers (registry + mcpExternalResolver)", () => {
  it("runs tools over stdio and HTTP and a prompt through the `prompt` alias, with $parameters from the servers", async () => {
    await writeFile(
      path.join(cwd, "mixed.yaml"),
      [
        "servers:",
        `  kit: "${stdioRef}"`,
        `  web: ${http.url}`,
        `  prompt: ${http.url}`,
        "pipeline:",
        "- kit.greet",
        "- kit.split",
        "- web.join:",
        "    output: {joined: line}",
        "- prompt.qa",
        "",
      ].join("\n"),
    );
    const run = await runPipeline("mixed.yaml", { cwd, external: mcpExternalResolver(), writeMemory: false });
    expect(run.variables.msg).toBe("Hello, Argus!");
    expect(run.variables.q_ls).toEqual(["alpha", "beta", "gamma"]);
    expect(run.variables.line).toBe("alpha, beta, gamma");
    expect(run.variables.prompt_ls).toEqual(
      ["alpha", "beta", "gamma"].map((q) => ({ role: "user", content: { type: "text", text: `Q: ${q}` } })),
    );
  });

  it("a failing external tool fails the run with the server and tool named", async () => {
    await writeFile(path.join(cwd, "failing.yaml"), `servers:\n  web: ${http.url}\npipeline:\n- web.fail\n`);
    await expect(
      runPipeline("failing.yaml", { cwd, external: mcpExternalResolver(), writeMemory: false }),
    ).rejects.toThrow(/MCP server `web` \(http:\/\/127\.0\.0\.1:\d+\/mcp\): tool `fail` failed: deliberate failure/);
  });
});
