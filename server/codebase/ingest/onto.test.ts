import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ingestOnto } from "./onto.ts";
import { expectRefusal, sandbox, type Sandbox } from "./test-support.ts";

let sb: Sandbox;
let base: string;
beforeEach(async () => {
  sb = await sandbox();
  base = path.join(sb.dir, "inputs", "previous");
  const files: Record<string, string> = {
    "README.md": "# app\n",
    "src/keep.py": "def keep():\n    return 1\n",
    "src/changed.py": "OLD = 1\n",
    "src/removed.py": "GONE = 1\n",
    "node_modules/dep/index.js": "module.exports = 1;\n",
  };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(base, rel)), { recursive: true });
    await writeFile(path.join(base, rel), text);
  }
  await symlink(path.join(sb.outside, "sentinel.txt"), path.join(base, "src", "link.txt"));
});
afterEach(async () => {
  await sb.cleanup();
});

async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { recursive: true, withFileTypes: true }))
    if (e.isFile() || e.isSymbolicLink()) {
      const abs = path.join(e.parentPath, e.name);
      out[path.relative(root, abs).split(path.sep).join("/")] = e.isFile() ? await readFile(abs, "utf8") : "(link)";
    }
  return out;
}

it("is the earlier tree without the paths left out, with the new files written in place", async () => {
  const summary = await ingestOnto({
    dest: sb.dest,
    base,
    leaveOut: new Set(["src/changed.py", "src/removed.py"]),
    files: new Map([
      ["src/changed.py", Buffer.from("NEW = 2\n")],
      ["src/added.py", Buffer.from("ADDED = 3\n")],
    ]),
  });
  // No link followed or copied, the default ignores applied as to an upload.
  expect(await tree(sb.dest)).toEqual({
    "README.md": "# app\n",
    "src/keep.py": "def keep():\n    return 1\n",
    "src/changed.py": "NEW = 2\n",
    "src/added.py": "ADDED = 3\n",
  });
  expect(summary.walk.files.map((f) => f.path).sort()).toEqual([
    "README.md",
    "src/added.py",
    "src/changed.py",
    "src/keep.py",
  ]);
  expect(summary.droppedCount).toBe(1);
  // The earlier tree is left as it was.
  expect(await readFile(path.join(base, "src/changed.py"), "utf8")).toBe("OLD = 1\n");
});

it("keeps the upload caps: too many files is refused and nothing is left behind", async () => {
  await expectRefusal(
    sb,
    () => ingestOnto({ dest: sb.dest, base, leaveOut: new Set(), files: new Map(), limits: { maxFiles: 2 } }),
    "cap_files",
  );
});
