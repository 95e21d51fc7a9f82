/**
 * docs/architecture.md stays true to the tree, at every depth:
 * - every folder and file its Layout block names exists (however deep it is nested);
 * - every folder under server/, at any depth, that holds .ts files is on the map: either it has its
 *   own line, or the description of its nearest ancestor on the map names it as a word (the way
 *   "codebase/ … symbols, analysis" or "trpc/ … routers/<area>.ts" do). A new folder of code gets
 *   a line or a word; a folder of data alone (no .ts) needs neither.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const doc = readFileSync(path.join(import.meta.dirname, "architecture.md"), "utf8");

interface LayoutEntry {
  path: string;
  /** The entry's description, its continuation lines joined on. */
  description: string;
}

/** The entries of the Layout block, nesting by two-space indentation. */
function layoutEntries(markdown: string): LayoutEntry[] {
  const section = /## Layout\n+```\n([\s\S]*?)```/.exec(markdown);
  if (!section) throw new Error("docs/architecture.md has no ## Layout code block");
  const parents: string[] = [];
  const out: LayoutEntry[] = [];
  for (const line of section[1]!.split("\n")) {
    const m = /^( *)([A-Za-z0-9_.\-[\]]+(?:\/|\.[a-z]+))(?: {2,}|$)/.exec(line);
    if (!m) {
      // a description's continuation line
      if (out.length) out[out.length - 1]!.description += ` ${line.trim()}`;
      continue;
    }
    const depth = m[1]!.length / 2;
    if (!Number.isInteger(depth) || depth > parents.length) throw new Error(`odd indentation: "${line}"`);
    parents.length = depth;
    out.push({ path: [...parents, m[2]!].join(""), description: line.slice(m[0].length).trim() });
    if (m[2]!.endsWith("/")) parents.push(m[2]!);
  }
  return out;
}

const layoutPaths = (markdown: string) => layoutEntries(markdown).map((e) => e.path);

/** Every folder below `dir` (relative to the repository, ending in "/") that holds a .ts file. */
function codeFolders(dir: string): string[] {
  const entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  const here = entries.some((e) => e.isFile() && e.name.endsWith(".ts")) ? [dir] : [];
  const below = entries.filter((e) => e.isDirectory()).flatMap((e) => codeFolders(`${dir}${e.name}/`));
  return [...here, ...below];
}

/** The folders of `folders` that are neither on the map nor named by their nearest ancestor on it. */
function unmapped(folders: string[], entries: LayoutEntry[]): string[] {
  const byPath = new Map(entries.map((e) => [e.path, e]));
  return folders.filter((folder) => {
    if (byPath.has(folder)) return false;
    const name = folder.slice(0, -1).split("/").pop()!;
    for (let up = path.posix.dirname(folder.slice(0, -1)); up !== "."; up = path.posix.dirname(up)) {
      const ancestor = byPath.get(`${up}/`);
      if (ancestor) return !new RegExp(`\\b${name}\\b`).test(ancestor.description);
    }
    return true;
  });
}

describe("docs/architecture.md", () => {
  const entries = layoutEntries(doc);
  const paths = entries.map((e) => e.path);

  it("names folders and files in its Layout block", () => {
    expect(paths).toContain("server/");
    expect(paths).toContain("server/agent/loop/");
    expect(paths.length).toBeGreaterThan(30);
  });

  it("names only what exists, at every depth", () => {
    expect(paths.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it("names every top-level folder of server/", () => {
    const folders = readdirSync(path.join(root, "server"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `server/${d.name}/`);
    expect(folders.filter((f) => !paths.includes(f))).toEqual([]);
  });

  it("maps every folder of server code at any depth (a line of its own, or a word in its parent's)", () => {
    expect(unmapped(codeFolders("server/"), entries)).toEqual([]);
  });

  it("reads nesting and continuation lines the way the block is written", () => {
    const sample =
      "## Layout\n\n```\nserver/\n  llm/   x\n    scripted/   y\n                continued, words\n  db/\napp/\n```\n";
    expect(layoutPaths(sample)).toEqual(["server/", "server/llm/", "server/llm/scripted/", "server/db/", "app/"]);
    expect(layoutEntries(sample)[2]).toEqual({ path: "server/llm/scripted/", description: "y continued, words" });
  });

  it("accepts a folder its ancestor's description names, and reports one nobody names", () => {
    const sample = layoutEntries("## Layout\n\n```\nserver/\n  trpc/   init, routers/<area>.ts\n```\n");
    expect(unmapped(["server/trpc/routers/", "server/trpc/extras/", "server/trpc/routers/deep/"], sample)).toEqual([
      "server/trpc/extras/",
      "server/trpc/routers/deep/",
    ]);
  });
});
