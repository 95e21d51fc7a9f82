/**
 * docs/architecture.md stays true to the tree: every folder and file its Layout block names exists,
 * and every top-level folder of server/ is named there (a new area gets a line in the map).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const doc = readFileSync(path.join(import.meta.dirname, "architecture.md"), "utf8");

/** The paths of the Layout block, nesting by two-space indentation. */
function layoutPaths(markdown: string): string[] {
  const section = /## Layout\n+```\n([\s\S]*?)```/.exec(markdown);
  if (!section) throw new Error("docs/architecture.md has no ## Layout code block");
  const parents: string[] = [];
  const out: string[] = [];
  for (const line of section[1]!.split("\n")) {
    const m = /^( *)([A-Za-z0-9_.\-[\]]+(?:\/|\.[a-z]+))(?: {2,}|$)/.exec(line);
    if (!m) continue; // a description's continuation line
    const depth = m[1]!.length / 2;
    if (!Number.isInteger(depth) || depth > parents.length) throw new Error(`odd indentation: "${line}"`);
    parents.length = depth;
    const full = [...parents, m[2]!].join("");
    out.push(full);
    if (m[2]!.endsWith("/")) parents.push(m[2]!);
  }
  return out;
}

describe("docs/architecture.md", () => {
  const paths = layoutPaths(doc);

  it("names folders and files in its Layout block", () => {
    expect(paths).toContain("server/");
    expect(paths).toContain("server/agent/loop/");
    expect(paths.length).toBeGreaterThan(30);
  });

  it("names only what exists", () => {
    expect(paths.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it("names every top-level folder of server/", () => {
    const folders = readdirSync(path.join(root, "server"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `server/${d.name}/`);
    expect(folders.filter((f) => !paths.includes(f))).toEqual([]);
  });

  it("reads nesting and continuation lines the way the block is written", () => {
    const sample =
      "## Layout\n\n```\nserver/\n  llm/   x\n    scripted/   y\n                continued, words\n  db/\napp/\n```\n";
    expect(layoutPaths(sample)).toEqual(["server/", "server/llm/", "server/llm/scripted/", "server/db/", "app/"]);
  });
});
