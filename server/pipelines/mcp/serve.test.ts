import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, symlink, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { serveMcp, type McpServing } from "./serve.ts";
import { TEST_PARAMETERS, createTestServer } from "./test-support.ts";

let cwd: string;
let client: Client;
let serving: McpServing;

beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), "argus-mcp-serve-"));
  const [a, b] = InMemoryTransport.createLinkedPair();
  serving = await serveMcp(createTestServer(), b, { cwd, advertisedPath: "http://127.0.0.1:9/mcp" });
  client = new Client({ name: "test", version: "1" });
  await client.connect(a);
});
afterAll(async () => {
  await client.close();
  await serving.close();
  await rm(cwd, { recursive: true, force: true });
});

const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

describe("serveMcp, as any MCP client sees it", () => {
  it("lists tools with JSON-schema inputs: pool inputs required, $parameters optional with their default", async () => {
    const { tools } = await client.listTools();
    const join = tools.find((t) => t.name === "join")!;
    expect(join.inputSchema.required).toEqual(["q_ls"]);
    expect(join.inputSchema.properties).toMatchObject({
      q_ls: { description: "UltraRAG input: pool variable q_ls" },
      sep: { default: ", " },
    });
    expect(join._meta?.["argus/io"]).toEqual({ input: { q_ls: "q_ls", sep: "$sep" }, output: ["joined", "count"] });
    expect(tools.map((t) => t.name)).toContain("build");
  });

  it("a tool call returns structuredContent and the same JSON as text; left-out $parameters take the defaults", async () => {
    const r = await client.callTool({ name: "join", arguments: { q_ls: ["a", "b"] } });
    expect(r.structuredContent).toEqual({ joined: "a, b", count: 2 });
    expect(JSON.parse(text(r))).toEqual({ joined: "a, b", count: 2 });
    expect((await client.callTool({ name: "greet", arguments: {} })).structuredContent).toEqual({
      msg: "Hello, Argus!",
    });
  });

  it("a failing or unknown tool is an error result with the message", async () => {
    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe("deliberate failure for the test");
    const unknown = await client.callTool({ name: "nope", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/testkit has no tool `nope`; it has greet, split, join/);
  });

  it("exposes prompts with their arguments and renders one user message per item", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: "qa",
        arguments: [
          expect.objectContaining({ name: "q_ls", required: true }),
          expect.objectContaining({ name: "template", required: false }),
        ],
      }),
    ]);
    const r = await client.getPrompt({ name: "qa", arguments: { q_ls: JSON.stringify(["x", "y"]) } });
    expect(r.messages.map((m) => (m.content as { text: string }).text)).toEqual(["Q: x", "Q: y"]);
    await expect(client.getPrompt({ name: "nope", arguments: {} })).rejects.toThrow(
      /testkit has no prompt `nope`; it has qa/,
    );
  });

  it("build writes server.yaml in UltraRAG's shape and parameter.yaml with the defaults", async () => {
    const r = await client.callTool({ name: "build", arguments: { parameter_file: "servers/testkit/parameter.yaml" } });
    expect(r.isError).toBeFalsy();
    const server = parseYaml(await readFile(path.join(cwd, "servers/testkit/server.yaml"), "utf8"));
    expect(server).toMatchObject({
      path: "http://127.0.0.1:9/mcp",
      parameter: "servers/testkit/parameter.yaml",
      tools: { greet: { input: { name: "$name" }, output: ["msg"] } },
      prompts: { qa: { input: { q_ls: "q_ls", template: "$template" }, output: ["prompt_ls"] } },
    });
    expect(server.tools.build).toBeUndefined();
    expect(parseYaml(await readFile(path.join(cwd, "servers/testkit/parameter.yaml"), "utf8"))).toEqual(
      TEST_PARAMETERS,
    );
  });

  it("build keeps the values a user edited (and their `path:`), adding only missing defaults", async () => {
    await mkdir(path.join(cwd, "servers/edited"), { recursive: true });
    await writeFile(path.join(cwd, "servers/edited/parameter.yaml"), "name: Edited\npath: https://mine/mcp\n");
    await client.callTool({ name: "build", arguments: { parameter_file: "servers/edited/parameter.yaml" } });
    expect(parseYaml(await readFile(path.join(cwd, "servers/edited/parameter.yaml"), "utf8"))).toEqual({
      ...TEST_PARAMETERS,
      name: "Edited",
      path: "https://mine/mcp",
    });
    expect(parseYaml(await readFile(path.join(cwd, "servers/edited/server.yaml"), "utf8")).path).toBe(
      "https://mine/mcp",
    );
  });

  it("build never writes through a symlink planted as server.yaml or parameter.yaml", async () => {
    const victim = path.join(cwd, "victim.txt");
    await writeFile(victim, "precious\n");
    await mkdir(path.join(cwd, "servers/trap"), { recursive: true });
    await writeFile(path.join(cwd, "servers/trap/parameter.yaml"), 'path: "x\\ntouch /tmp/pwned\\n"\n');
    await symlink(victim, path.join(cwd, "servers/trap/server.yaml"));
    const r = await client.callTool({ name: "build", arguments: { parameter_file: "servers/trap/parameter.yaml" } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/is a symbolic link/);
    await mkdir(path.join(cwd, "servers/trap2"), { recursive: true });
    await symlink(victim, path.join(cwd, "servers/trap2/parameter.yaml"));
    expect(
      text(await client.callTool({ name: "build", arguments: { parameter_file: "servers/trap2/parameter.yaml" } })),
    ).toMatch(/is a symbolic link/);
    expect(await readFile(victim, "utf8")).toBe("precious\n");
  });

  it("build refuses paths outside its directory, non-YAML files and broken YAML, writing nothing", async () => {
    const outsideDir = `/etc/argus-mcp-test-${process.pid}`;
    const refused = await client.callTool({
      name: "build",
      arguments: { parameter_file: `../../../..${outsideDir}/parameter.yaml` },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/is outside the directory this server was started in/);
    const notYaml = await client.callTool({ name: "build", arguments: { parameter_file: "servers/x/run.sh" } });
    expect(text(notYaml)).toMatch(/is not a .yaml file/);
    await writeFile(path.join(cwd, "broken.yaml"), "a: [\n");
    const broken = await client.callTool({ name: "build", arguments: { parameter_file: "broken.yaml" } });
    expect(text(broken)).toMatch(/`broken.yaml` is not valid YAML/);
    const missing = await client.callTool({ name: "build", arguments: {} });
    expect(text(missing)).toMatch(/build needs `parameter_file`/);
    expect(existsSync(outsideDir)).toBe(false);
  });
});
