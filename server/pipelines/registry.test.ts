import { describe, expect, it } from "vitest";
import { TEST_BUILTINS, tempDir } from "./engine/test-support.ts";
import { ServerRegistry, type ExternalServerSpec } from "./registry.ts";
import type { PipelineServer } from "./servers/contract.ts";

const fake = (spec: ExternalServerSpec): PipelineServer => ({
  name: spec.alias,
  signature: async () => ({ tools: { t: { input: {}, output: [] } }, prompts: {}, parameters: {} }),
  call: async () => ({}),
  close: async () => {},
});

describe("ServerRegistry", () => {
  it("resolves servers/<name> to a built-in, with the directory's parameter.yaml when present", () => {
    const t = tempDir({ "servers/sayhello/parameter.yaml": "name: Ada\n" });
    try {
      const r = new ServerRegistry({ cwd: t.dir });
      expect(r.resolve("servers/sayhello")).toMatchObject({
        kind: "builtin",
        name: "sayhello",
        label: "argus:servers/sayhello",
        parameters: { name: "Ada" },
      });
      expect(r.resolve("./servers/router/")).toEqual({
        kind: "builtin",
        name: "router",
        label: "argus:servers/router",
      });
      expect(r.resolve("argus:servers/sayhello")).toMatchObject({
        kind: "builtin",
        name: "sayhello",
        parameters: { name: "Ada" },
      });
      expect(r.resolve("servers/nope")).toBeUndefined();
      expect(() => r.resolve("argus:servers/nope")).toThrow("names no built-in server");
    } finally {
      t.cleanup();
    }
  });

  it("recognises external MCP servers: URLs, stdio commands, and a parameter.yaml path", () => {
    const t = tempDir({
      "servers/py/parameter.yaml": "path: servers/py/src/py.py\nk: 1\n",
      "servers/remote/parameter.yaml": "path: https://example.com/mcp\n",
    });
    try {
      const r = new ServerRegistry({ cwd: t.dir });
      expect(r.resolve("http://127.0.0.1:8080/mcp")).toMatchObject({
        kind: "external",
        transport: { transport: "http", url: "http://127.0.0.1:8080/mcp" },
      });
      expect(r.resolve(`stdio:node "my server.js" --x`)).toMatchObject({
        kind: "external",
        transport: { transport: "stdio", command: "node", args: ["my server.js", "--x"] },
      });
      expect(r.resolve("servers/py")).toMatchObject({
        kind: "external",
        transport: { transport: "stdio", command: "python", args: ["servers/py/src/py.py"] },
        parameters: { k: 1 },
      });
      expect(r.resolve("servers/remote")).toMatchObject({
        kind: "external",
        transport: { transport: "http", url: "https://example.com/mcp" },
      });
    } finally {
      t.cleanup();
    }
  });

  it("opens external servers through the resolver hook, only for used aliases", async () => {
    const t = tempDir();
    try {
      const seen: ExternalServerSpec[] = [];
      const r = new ServerRegistry({ cwd: t.dir, builtins: TEST_BUILTINS, external: (s) => (seen.push(s), fake(s)) });
      const entries = [
        { alias: "toy", path: "servers/toy", aliasPos: { line: 1, col: 1 }, pathPos: { line: 1, col: 1 } },
        { alias: "used", path: "stdio:node a.js", aliasPos: { line: 1, col: 1 }, pathPos: { line: 1, col: 1 } },
        { alias: "idle", path: "http://x/mcp", aliasPos: { line: 1, col: 1 }, pathPos: { line: 1, col: 1 } },
      ];
      const opened = await r.openAll(entries, new Set(["toy", "used"]));
      expect([...opened.keys()]).toEqual(["toy", "used"]);
      expect(seen).toEqual([
        {
          transport: "stdio",
          command: "node",
          args: ["a.js"],
          alias: "used",
          path: "stdio:node a.js",
          cwd: t.dir,
          parameters: {},
        },
      ]);
      // The unopened external server still validates (as an empty server) instead of "unknown".
      expect(r.catalog(opened, entries).lookup("http://x/mcp")).toEqual({ tools: {}, prompts: {}, parameters: {} });
    } finally {
      t.cleanup();
    }
  });

  it("without an MCP client, an external server is a clear error", async () => {
    const r = new ServerRegistry({ cwd: "/" });
    await expect(r.open("x", "http://127.0.0.1:1/mcp")).rejects.toThrow(
      "is an external MCP server, but this run has no MCP client configured",
    );
  });

  it("reports a broken parameter.yaml by name", () => {
    const t = tempDir({ "servers/sayhello/parameter.yaml": "- a list\n" });
    try {
      expect(() => new ServerRegistry({ cwd: t.dir }).resolve("servers/sayhello")).toThrow(
        /servers\/sayhello\/parameter\.yaml must be a mapping/,
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("ServerRegistry.openAll", () => {
  it("resolves each server once (its parameter.yaml is read once per run)", async () => {
    const t = tempDir({ "servers/sayhello/parameter.yaml": "name: Ada\n" });
    try {
      const r = new ServerRegistry({ cwd: t.dir });
      const seen: string[] = [];
      const resolve = r.resolve.bind(r);
      r.resolve = (p: string) => (seen.push(p), resolve(p));
      const pos = { line: 1, col: 1 };
      const opened = await r.openAll(
        ["servers/sayhello", "servers/router"].map((p, i) => ({
          alias: "ab"[i]!,
          path: p,
          aliasPos: pos,
          pathPos: pos,
        })),
      );
      expect(seen).toEqual(["servers/sayhello", "servers/router"]);
      expect(opened.get("a")!.target).toMatchObject({ parameters: { name: "Ada" } });
      for (const o of opened.values()) await o.server.close();
    } finally {
      t.cleanup();
    }
  });
});
