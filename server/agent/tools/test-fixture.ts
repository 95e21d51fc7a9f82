/**
 * For tests only: a snapshot-like tree in a temp folder, with everything the Sandbox and the tools must
 * handle — a .gitignore, ignored folders and secrets, a binary, a big file, symlinks escaping the root
 * (relative, absolute, to a folder) and one pointing inside, a git history of two commits, a symbol
 * index built by the real walker + indexer, and a secret file OUTSIDE the root whose content must never
 * appear in any tool output.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fixtureGit } from "../../codebase/ingest/test-support.ts";
import { buildSymbolIndex } from "../../codebase/symbols/index.ts";
import { afterAll } from "vitest";
import { walk } from "../../codebase/walker.ts";
import { createReviewTools, runToolCall, type ReviewToolSet } from "./index.ts";
import type { ToolContext, ToolResult } from "./types.ts";

export interface Fixture {
  base: string;
  root: string;
  outside: string;
  /** Content of outside/secret.txt: no tool result may ever contain it. */
  outsideSecret: string;
  /** Contents of ignored files inside the root (.env, node_modules, gitignored): never shown either. */
  ignoredSecrets: string[];
  symbolsPath: string;
  commits: { first: string; second: string };
  ctx: ToolContext;
  cleanup(): void;
}

export const APP_TS_V1 = `import { formatName } from "./util";

export function greet(name: string): string {
  return "Hello, " + formatName(name);
}
`;

export const APP_TS = `import { formatName } from "./util";
import express from "express";

export class Greeter {
  constructor(private readonly prefix: string) {}

  greet(name: string): string {
    return this.prefix + formatName(name);
  }
}

export function greet(name: string): string {
  const g = new Greeter("Hello, ");
  return g.greet(name);
}

export function runQuery(db: { query(sql: string): unknown }, id: string) {
  return db.query("SELECT * FROM users WHERE id = '" + id + "'");
}
`;

export const UTIL_TS = `export function formatName(name: string): string {
  return name.trim().toUpperCase();
}

export const VERSION = "1.0";
`;

export function makeFixture(): Fixture {
  const tag = randomBytes(6).toString("hex");
  const base = mkdtempSync(path.join(os.tmpdir(), "argus-review-tools-"));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  const outsideSecret = `OUTSIDE-SECRET-${tag}`;
  const ignoredSecrets = [`ENV-SECRET-${tag}`, `NODE-MODULES-SECRET-${tag}`, `GITIGNORED-SECRET-${tag}`];
  const put = (rel: string, content: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  };
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, "secret.txt"), `${outsideSecret}\n`);
  mkdirSync(path.join(outside, "dir"));
  writeFileSync(path.join(outside, "dir", "inner.txt"), `${outsideSecret} inner\n`);

  // History first (two commits), so symlinks and big files stay out of git.
  const git = fixtureGit(root);
  mkdirSync(root, { recursive: true });
  git("init", "-q", "--initial-branch=main");
  put(".gitignore", "generated/\n*.log\n");
  put("src/app.ts", APP_TS_V1);
  put("src/util.ts", UTIL_TS);
  put("README.md", "# Fixture\n\nA tiny app.\n");
  // A committed secret: the snapshot excludes .env, and so must get_diff.
  put(".env", `API_KEY=${ignoredSecrets[0]}-v1\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "first: greet");
  const first = git("rev-parse", "HEAD");
  put("src/app.ts", APP_TS);
  put(".env", `API_KEY=${ignoredSecrets[0]}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "second: Greeter class and a query");
  const second = git("rev-parse", "HEAD");

  // Untracked content the review still sees (or must not see).
  put("node_modules/dep/index.js", `module.exports = "${ignoredSecrets[1]}";\n`);
  put("generated/out.ts", `export const token = "${ignoredSecrets[2]}";\n`);
  put("debug.log", `${ignoredSecrets[2]} in a log\n`);
  put(
    "assets/blob.bin",
    Buffer.concat([Buffer.from("BINARYMARK"), Buffer.from([0, 1, 2, 3, 0]), Buffer.from("greet")]),
  );
  put(
    "src/long.ts",
    Array.from({ length: 2500 }, (_, i) => `export const line${i + 1} = ${i + 1}; // greet marker`).join("\n") + "\n",
  );
  put("src/short.txt", Array.from({ length: 1500 }, (_, i) => `${i % 10}`).join("\n") + "\n");
  // 5 MB: more than read_file reads (4 MB) and than grep searches per file (1 MB).
  const bigLine = "x".repeat(99) + "\n";
  put("data/big.txt", `needle-at-top\n${bigLine.repeat(50_000)}needle-at-bottom\n`);
  put("docs/weird name.md", "a file with a space: greet\n");

  symlinkSync("../outside/secret.txt", path.join(root, "escape-rel"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(root, "escape-abs"));
  symlinkSync("../outside", path.join(root, "escape-dir"));
  symlinkSync("../../outside/dir", path.join(root, "src", "escape-nested"));
  symlinkSync("src/app.ts", path.join(root, "inner-link.ts"));
  symlinkSync(".env", path.join(root, "env-link"));

  const symbolsPath = path.join(base, "index", "symbols.sqlite");
  const cleanup = () => rmSync(base, { recursive: true, force: true });
  return {
    base,
    root,
    outside,
    outsideSecret,
    ignoredSecrets,
    symbolsPath,
    commits: { first, second },
    ctx: {
      root,
      symbolsPath,
      gitDir: path.join(root, ".git"),
      staticFindings: async () => [
        {
          tool: "argus",
          ruleId: "sql/string-concat",
          severity: "high",
          confidence: 0.8,
          file: "src/app.ts",
          startLine: 18,
          endLine: 18,
          message: "SQL built by string concatenation",
        },
        {
          tool: "eslint",
          ruleId: "no-unused-vars",
          severity: "low",
          confidence: 0.9,
          file: "src/app.ts",
          startLine: 2,
          endLine: 2,
          message: "'express' is defined but never used",
        },
        {
          tool: "argus",
          ruleId: "style/long-file",
          severity: "info",
          confidence: 0.5,
          file: "src/long.ts",
          startLine: 1,
          endLine: 2500,
          message: "Very long file",
        },
        {
          tool: "argus",
          ruleId: "secrets/api-key",
          severity: "critical",
          confidence: 0.9,
          file: "node_modules/dep/index.js",
          startLine: 1,
          endLine: 1,
          message: `key ${ignoredSecrets[1]}`,
        },
      ],
    },
    cleanup,
  };
}

/** Builds the fixture's symbol index with the real walker (so it holds exactly the indexable files). */
export async function buildFixtureIndex(f: Fixture): Promise<void> {
  mkdirSync(path.dirname(f.symbolsPath), { recursive: true });
  const walked = await walk(f.root);
  await buildSymbolIndex({
    root: f.root,
    files: walked.files.map((w) => ({ path: w.path, language: w.language })),
    indexPath: f.symbolsPath,
    workers: 0,
    ctags: false,
  });
}

export interface FixtureTools {
  f: Fixture;
  tools: ReviewToolSet;
  /** One tool call against the fixture's tools, as the agent loop makes it. */
  call(name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

/**
 * The fixture and the full tool set for one test file (await it at the top level), with the symbol
 * index when `index` is set; the tools are closed and the fixture removed after the last test.
 */
export async function fixtureWithTools(opts: { index?: boolean } = {}): Promise<FixtureTools> {
  const f = makeFixture();
  if (opts.index) await buildFixtureIndex(f);
  const tools = createReviewTools(f.ctx);
  afterAll(() => {
    tools.close();
    f.cleanup();
  });
  return { f, tools, call: (name, args, signal) => runToolCall(tools, name, args, signal) };
}
