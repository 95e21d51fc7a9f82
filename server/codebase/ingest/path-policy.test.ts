import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IngestError, type IngestErrorCode } from "./errors.ts";
import { ingestPath } from "./path.ts";
import { isWithin, resolveImportPath, type ImportPathPolicy } from "./path-policy.ts";
import { expectRefusal, sandbox, type Sandbox } from "./test-support.ts";

let base: string;
let root: string;
let dataDir: string;
let policy: ImportPathPolicy;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), "argus-roots-"));
  root = path.join(base, "code");
  dataDir = path.join(root, "argus-data");
  await mkdir(path.join(root, "app", "src"), { recursive: true });
  await writeFile(path.join(root, "app", "src", "index.ts"), "export {};\n");
  await writeFile(path.join(root, "notes.txt"), "a file\n");
  await mkdir(path.join(base, "code-evil"));
  await mkdir(path.join(base, "secret"));
  await mkdir(dataDir);
  policy = { roots: [root], protectedDirs: [dataDir] };
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refused(input: string, p: ImportPathPolicy = policy): Promise<IngestError> {
  const err = await resolveImportPath(input, p).catch((e: unknown) => e);
  expect(err, input).toBeInstanceOf(IngestError);
  return err as IngestError;
}
const code = async (input: string, p?: ImportPathPolicy): Promise<IngestErrorCode> => (await refused(input, p)).code;

describe("resolveImportPath", () => {
  it("is off until the operator lists roots, and says how to turn it on", async () => {
    const err = await refused(path.join(root, "app"), { roots: [], protectedDirs: [] });
    expect(err.code).toBe("path_not_allowed");
    expect(err.message).toMatch(/turned off.*IMPORT_PATH_ROOTS/);
  });

  it("allows a folder inside a root, by its real path", async () => {
    expect(await resolveImportPath(path.join(root, "app"), policy)).toBe(path.join(root, "app"));
    await symlink(path.join(root, "app"), path.join(root, "app-link"));
    expect(await resolveImportPath(path.join(root, "app-link"), policy)).toBe(path.join(root, "app"));
    // A root given through a symlink counts as its target.
    await symlink(root, path.join(base, "code-link"));
    const viaLink = { roots: [path.join(base, "code-link")], protectedDirs: [] };
    expect(await resolveImportPath(path.join(base, "code-link", "app"), viaLink)).toBe(path.join(root, "app"));
  });

  it("refuses what lies outside every root: siblings sharing a prefix, .. escapes, symlinks pointing out, /", async () => {
    for (const input of [path.join(base, "code-evil"), path.join(base, "secret"), `${root}/../secret`, "/", "/etc"])
      expect(await code(input), input).toBe("path_not_allowed");
    await symlink(path.join(base, "secret"), path.join(root, "escape"));
    const err = await refused(path.join(root, "escape"));
    expect(err.code).toBe("path_not_allowed");
    expect(err.message).toContain(`(IMPORT_PATH_ROOTS: ${root})`);
  });

  it("does not tell whether a path outside the roots exists", async () => {
    const there = await refused(path.join(base, "secret"));
    const notThere = await refused(path.join(base, "secreT"));
    expect(notThere.message.replace("secreT", "secret")).toBe(there.message);
  });

  it("never imports DATA_DIR, anything in it, or a folder holding it — even with / as a root", async () => {
    for (const input of [dataDir, `${dataDir}/`, `${dataDir}/../argus-data`, root]) {
      const err = await refused(input);
      expect(err.code, input).toBe("path_not_allowed");
      expect(err.message).toMatch(/Argus's own data folder \(DATA_DIR\)/);
    }
    await mkdir(path.join(dataDir, "projects"));
    expect(await code(path.join(dataDir, "projects"))).toBe("path_not_allowed");
    const everything = { roots: ["/"], protectedDirs: [dataDir] };
    expect(await code("/", everything)).toBe("path_not_allowed");
    expect(await resolveImportPath(path.join(root, "app"), everything)).toBe(path.join(root, "app"));
  });

  it("says a missing folder, a file or a relative path is not a folder to import", async () => {
    expect(await code(path.join(root, "nope"))).toBe("source_not_found");
    expect(await code(path.join(root, "notes.txt"))).toBe("source_not_found");
    expect(await code("code/app")).toBe("source_not_found");
  });
});

describe("isWithin", () => {
  it("compares by path segments", () => {
    expect(isWithin("/srv/code", "/srv/code")).toBe(true);
    expect(isWithin("/srv/code", "/srv/code/a/b")).toBe(true);
    expect(isWithin("/srv/code", "/srv/code-x")).toBe(false);
    expect(isWithin("/srv/code", "/srv")).toBe(false);
    expect(isWithin("/", "/srv")).toBe(true);
    expect(isWithin("/srv/code", "/srv/code/..x")).toBe(true);
  });
});

describe("ingestPath", () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await sandbox();
  });
  afterEach(async () => {
    await sb.cleanup();
  });

  it("applies the policy itself, at the moment it copies (the job re-checks what the service checked)", async () => {
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: path.join(base, "secret"), dest: sb.dest, policy }),
      "path_not_allowed",
    );
    const summary = await ingestPath({ sourcePath: path.join(root, "app"), dest: sb.dest, policy });
    expect(summary.walk.files.map((f) => f.path)).toEqual(["src/index.ts"]);
  });

  it("refuses / as a source: it holds the snapshot directory", async () => {
    await expectRefusal(
      sb,
      () => ingestPath({ sourcePath: "/", dest: sb.dest, limits: { maxFiles: 1 } }),
      "unsafe_path",
      /snapshots inside/,
    );
  });
});
