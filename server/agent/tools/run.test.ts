import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolDefinitionSchema } from "../../llm/index.ts";
import {
  createReviewTools,
  MAX_TOOL_RESULT_CHARS,
  runToolCall,
  TOOL_NAMES,
  toolDefinitions,
  type ReviewTool,
} from "./index.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { f, tools, call } = await fixtureWithTools({ index: true });

describe("runToolCall: bad calls become helpful error text", () => {
  it("unknown tool: lists the available ones", async () => {
    expect(await call("read_files", { path: "x" })).toEqual({
      isError: true,
      text: `There is no tool named "read_files". Available tools: ${TOOL_NAMES.join(", ")}.`,
    });
  });

  it("missing or mistyped arguments: says which and lists the expected fields", async () => {
    const r = await call("read_file", { file: "src/app.ts", start_line: "ten" });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      [
        "Invalid arguments for read_file:",
        "  path: Invalid input: expected string, received undefined",
        "  start_line: Invalid input: expected number, received NaN",
        "Expected fields:",
        '  path (string, required): Path relative to the project root, with forward slashes (e.g. "src/app.ts").',
        "  start_line (integer, optional): First line to show (1-based, default 1).",
        "  end_line (integer, optional): Last line to show (inclusive). At most 1000 lines per call.",
      ].join("\n"),
    );
    const g = await call("grep", { pattern: "", case: "upper", context: 99 });
    expect(g.text).toContain("pattern: give a non-empty pattern");
    expect(g.text).toContain('case: Invalid option: expected one of "sensitive"|"insensitive"|"smart"');
    expect(g.text).toContain("context: Too big: expected number to be <=10");
    expect(g.text).toContain('  case ("sensitive" | "insensitive" | "smart", optional, default "sensitive")');
  });

  it("arguments as a JSON string, broken JSON, or not an object", async () => {
    expect((await call("read_file", '{"path":"src/util.ts","end_line":1}')).text).toContain(
      "1 | export function formatName",
    );
    const broken = await call("read_file", '{"path": "src/util.ts"');
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(
      /^Invalid arguments for read_file: the arguments are not valid JSON \(.*\)\. Send a JSON object with these fields:\n {2}path \(string, required\)/,
    );
    expect((await call("read_file", ["src/util.ts"])).text).toMatch(/expected a JSON object, got an array/);
    expect((await call("list_dir", undefined)).text.split("\n")[0]).toBe("./");
  });

  it("lenient where models are sloppy: numbers as strings, unknown fields ignored", async () => {
    const r = await call("read_file", { path: "src/util.ts", start_line: "2", end_line: "3", reason: "checking" });
    expect(r.text.split("\n")).toEqual([
      "src/util.ts — lines 2–3 of 5 (typescript, 120 B)",
      "2 |   return name.trim().toUpperCase();",
      "3 | }",
    ]);
  });

  it("a tool that throws unexpectedly: an error result without server paths", async () => {
    const broken: ReviewTool = {
      name: "broken",
      description: "",
      input: z.object({}),
      run: async () => {
        throw new Error("ENOENT: no such file, open '/srv/argus/data/projects/p1/x'");
      },
    };
    expect(await runToolCall([broken], "broken", {})).toEqual({
      isError: true,
      text: "broken failed: ENOENT: no such file, open '<path>'. Try different arguments or another tool.",
    });
  });

  it("cuts an oversized result as a last resort", async () => {
    const huge: ReviewTool = {
      name: "huge",
      description: "",
      input: z.object({}),
      run: async () => ({ text: "line\n".repeat(MAX_TOOL_RESULT_CHARS) }),
    };
    const r = await runToolCall([huge], "huge", {});
    expect(r.text.length).toBeLessThan(MAX_TOOL_RESULT_CHARS + 100);
    expect(r.text).toMatch(/\[Result cut at 40,000 characters; ask for less\.\]$/);
  });

  it("cancellation propagates instead of becoming a result", async () => {
    const ac = new AbortController();
    ac.abort(new Error("review cancelled"));
    await expect(call("grep", { pattern: "x" }, ac.signal)).rejects.toThrow("review cancelled");
  });
});

describe("path escapes through every tool: refused, nothing read", () => {
  // Lexically hostile: every tool must refuse before touching the disk.
  const lexical = [
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    "/etc/passwd",
    "PLACEHOLDER_ABS",
    "~/secret.txt",
    "..\\outside\\secret.txt",
    "C:\\outside\\secret.txt",
    "%2e%2e/outside/secret.txt",
    "%2e%2e%2foutside%2fsecret.txt",
    "src/app.ts\u0000../../outside/secret.txt",
  ];
  const viaLinks = [
    "escape-rel",
    "escape-abs",
    "escape-dir/secret.txt",
    "escape-dir/dir/inner.txt",
    "src/escape-nested/inner.txt",
  ];
  const ignored = [".env", "node_modules/dep/index.js", "generated/out.ts", ".git/config"];
  const pathArgs = (p: string): [string, Record<string, unknown>][] => [
    ["list_dir", { path: p }],
    ["read_file", { path: p }],
    ["grep", { pattern: "SECRET", path: p }],
    ["list_symbols", { file: p }],
    ["find_module", { specifier: "./x", from_file: p }],
    ["get_file_summary", { path: p }],
    ["get_static_analysis", { file: p }],
    ["get_diff", { from: "HEAD~1", paths: [p] }],
    ["get_git_log", { path: p }],
  ];
  const secrets = () => [f.outsideSecret, ...f.ignoredSecrets];

  it("lexical escapes: every tool refuses with a message, no secret in it", async () => {
    for (const raw of lexical) {
      const p = raw === "PLACEHOLDER_ABS" ? `${f.outside}/secret.txt` : raw;
      for (const [name, args] of pathArgs(p)) {
        const r = await call(name, args);
        expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        expect(r.text.length).toBeGreaterThan(20);
        for (const s of secrets()) expect(r.text).not.toContain(s);
      }
    }
  });

  it("symlinks out of the root and ignored files: no content, whatever the tool", async () => {
    for (const p of [...viaLinks, ...ignored]) {
      for (const [name, args] of pathArgs(p)) {
        const r = await call(name, args);
        for (const s of secrets()) expect(r.text, `${name} ${JSON.stringify(args)}`).not.toContain(s);
        // Tools that open the path refuse it; the history/finding filters answer "nothing there".
        if (!["get_static_analysis", "get_diff", "get_git_log"].includes(name) || ignored.includes(p))
          expect(r.isError, `${name} ${p}`).toBe(true);
      }
    }
  });

  it("searching the whole tree for the secrets finds nothing", async () => {
    for (const s of secrets()) {
      const r = await call("grep", { pattern: s, literal: true, max_results: 500 });
      expect(r.text).toBe(`No matches for text ${JSON.stringify(s)}.`);
    }
  });
});

describe("toolDefinitions", () => {
  it("describes every tool with a valid JSON Schema", () => {
    const defs = toolDefinitions(tools);
    expect(defs.map((d) => d.name)).toEqual([...TOOL_NAMES]);
    for (const d of defs) {
      expect(toolDefinitionSchema.parse(d)).toEqual(d);
      expect(d.description.length).toBeGreaterThan(40);
      expect(d.inputSchema.type).toBe("object");
      expect(d.inputSchema).not.toHaveProperty("$schema");
    }
    const read = defs.find((d) => d.name === "read_file")!;
    expect(read.inputSchema.required).toEqual(["path"]);
    expect(Object.keys(read.inputSchema.properties as object)).toEqual(["path", "start_line", "end_line"]);
    expect(defs.find((d) => d.name === "list_dir")!.inputSchema.required).toBeUndefined();
  });

  it("can build a subset", () => {
    const some = createReviewTools(f.ctx, { only: ["read_file", "grep"] });
    expect(some.map((t) => t.name)).toEqual(["read_file", "grep"]);
    some.close();
  });
});
