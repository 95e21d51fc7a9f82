import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Sandbox, SandboxError, type SandboxErrorCode } from "./sandbox.ts";
import { APP_TS, makeFixture, type Fixture } from "./tools/test-fixture.ts";

let f: Fixture;
let sb: Sandbox;

beforeAll(() => {
  f = makeFixture();
  sb = new Sandbox(f.root);
});
afterAll(() => f?.cleanup());

function refusal(fn: () => unknown): SandboxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SandboxError);
    return err as SandboxError;
  }
  throw new Error("expected a refusal");
}

/** Every secret the fixture plants: none may appear in a refusal either. */
function expectNoSecrets(text: string) {
  expect(text).not.toContain(f.outsideSecret);
  for (const s of f.ignoredSecrets) expect(text).not.toContain(s);
}

describe("Sandbox: lexical normalisation", () => {
  it("cleans relative paths", () => {
    expect(sb.normalise("src/app.ts")).toBe("src/app.ts");
    expect(sb.normalise("./src//app.ts")).toBe("src/app.ts");
    expect(sb.normalise("src/")).toBe("src");
    expect(sb.normalise(".")).toBe("");
    expect(sb.normalise("")).toBe("");
    expect(sb.normalise("  src/app.ts ")).toBe("src/app.ts");
    expect(sb.normalise("docs/weird name.md")).toBe("docs/weird name.md");
  });

  const hostile: [string, SandboxErrorCode, RegExp][] = [
    ["../outside/secret.txt", "outside_root", /climbs with "\.\."/],
    ["src/../../outside/secret.txt", "outside_root", /climbs/],
    ["src/../src/app.ts", "outside_root", /full path from the project root/],
    ["/etc/passwd", "outside_root", /absolute path/],
    ["~/.ssh/id_rsa", "outside_root", /home directory/],
    ["~root/.bashrc", "outside_root", /"~" is not expanded/],
    ["C:\\Windows\\win.ini", "outside_root", /Windows or network/],
    ["c:/windows/win.ini", "outside_root", /Windows or network/],
    ["\\\\server\\share\\x", "outside_root", /Windows or network/],
    ["//server/share/x", "outside_root", /Windows or network/],
    ["..\\outside\\secret.txt", "invalid_path", /forward slashes/],
    ["src\\app.ts", "invalid_path", /"src\/app\.ts"/],
    ["src/app.ts\0.png", "invalid_path", /NUL byte/],
    ["src/\napp.ts", "invalid_path", /control characters/],
    ["%2e%2e/outside/secret.txt", "invalid_path", /URL-encoded/],
    ["..%2foutside%2fsecret.txt", "invalid_path", /URL-encoded/],
    ["%252e%252e/outside", "invalid_path", /URL-encoded/],
    ["src%5c..%5c..%5coutside", "invalid_path", /URL-encoded/],
    ["file:///etc/passwd", "invalid_path", /is a URL/],
    [`${"a".repeat(300)}/x.ts`, "invalid_path", /255 bytes/],
  ];
  it.each(hostile)("refuses %j (%s) before touching the disk, with advice", (raw, code, message) => {
    const err = refusal(() => sb.normalise(raw));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    // The same refusal from every entry point: nothing is read.
    expect(refusal(() => sb.readFile(raw)).code).toBe(code);
    expect(refusal(() => sb.listDir(raw)).code).toBe(code);
  });

  it("refuses the absolute path of the outside secret itself", () => {
    const err = refusal(() => sb.readFile(path.join(f.outside, "secret.txt")));
    expect(err.code).toBe("outside_root");
    expectNoSecrets(err.message);
  });
});

describe("Sandbox: symlinks", () => {
  it.each([
    ["escape-rel", /points outside the project/],
    ["escape-abs", /points outside the project/],
    ["escape-dir", /points outside the project/],
    ["escape-dir/secret.txt", /"escape-dir" is a symbolic link/],
    ["src/escape-nested/inner.txt", /"src\/escape-nested" is a symbolic link/],
  ])("refuses %j (a link out of the root): nothing read", (raw, message) => {
    const err = refusal(() => sb.readFile(raw));
    expect(err.code).toBe("symlink");
    expect(err.message).toMatch(message);
    expectNoSecrets(err.message);
    expect(refusal(() => sb.listDir(raw)).code).toBe("symlink");
  });

  it("does not follow a link that stays inside either, but names its target", () => {
    const err = refusal(() => sb.readFile("inner-link.ts"));
    expect(err.code).toBe("symlink");
    expect(err.message).toContain("open that path instead");
    expect(err.message).toContain('"src/app.ts"');
  });

  it("does not suggest an ignored target (.env) behind a link", () => {
    const err = refusal(() => sb.readFile("env-link"));
    expect(err.code).toBe("symlink");
    expect(err.message).not.toContain(".env");
    expectNoSecrets(err.message);
  });

  it("works when the root itself is reached through a symlink", () => {
    const linkedRoot = path.join(f.base, "root-link");
    symlinkSync(f.root, linkedRoot);
    const s = new Sandbox(linkedRoot);
    expect(s.root).toBe(sb.root);
    expect(s.readFile("src/app.ts").content).toBe(APP_TS);
  });
});

describe("Sandbox: ignore rules", () => {
  it.each([
    ".env",
    "node_modules/dep/index.js",
    "node_modules",
    "generated/out.ts",
    "generated",
    "debug.log",
    ".git/config",
    ".git",
  ])("treats %j as excluded, never its content", (raw) => {
    const err = refusal(() => sb.readFile(raw));
    expect(err.code).toBe("ignored");
    expect(err.message).toMatch(/excluded from the review/);
    expectNoSecrets(err.message);
  });

  it("says which rule excluded a path", () => {
    expect(refusal(() => sb.readFile("generated/out.ts")).message).toContain(
      'its folder generated/ matches rule "generated/" in .gitignore',
    );
    expect(refusal(() => sb.readFile(".env")).message).toContain("Argus's default ignores");
  });

  it("lists a folder without ignored entries, counting them", () => {
    const l = sb.listDir(".");
    const names = l.entries.map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "src",
        "README.md",
        "assets",
        "data",
        "docs",
        ".gitignore",
        "escape-rel",
        "inner-link.ts",
      ]),
    );
    for (const hidden of [".env", "node_modules", "generated", "debug.log", ".git"])
      expect(names).not.toContain(hidden);
    expect(l.ignoredCount).toBe(5);
    expect(l.entries.find((e) => e.name === "escape-dir")?.kind).toBe("symlink");
    expect(l.entries.find((e) => e.name === "README.md")).toEqual({ name: "README.md", kind: "file", size: 23 });
  });
});

describe("Sandbox: reading", () => {
  it("reads a text file", () => {
    const r = sb.readFile("src/app.ts");
    expect(r).toEqual({ path: "src/app.ts", content: APP_TS, size: Buffer.byteLength(APP_TS), truncated: false });
  });

  it("caps reads and says so", () => {
    const r = sb.readFile("data/big.txt", { maxBytes: 1000 });
    expect(r.content.length).toBe(1000);
    expect(r.truncated).toBe(true);
    expect(r.size).toBeGreaterThan(5_000_000);
    expect(sb.readFile("data/big.txt").content.length).toBe(2 * 1024 * 1024);
  });

  it("refuses binary files with a note", () => {
    const err = refusal(() => sb.readFile("assets/blob.bin"));
    expect(err.code).toBe("binary");
    expect(err.message).toMatch(/binary file \(20 bytes\)/);
  });

  it("explains missing paths and wrong kinds", () => {
    expect(refusal(() => sb.readFile("src/nope.ts")).message).toMatch(/There is no "src\/nope.ts".*list_dir on "src"/);
    expect(refusal(() => sb.readFile("nope/app.ts")).message).toMatch(
      /There is no "nope" in the project \(so "nope\/app.ts" does not exist either\)/,
    );
    expect(refusal(() => sb.readFile("src/app.ts/x")).message).toMatch(/"src\/app.ts" is a file, not a folder/);
    expect(refusal(() => sb.readFile("src")).code).toBe("not_a_file");
    expect(refusal(() => sb.listDir("README.md")).code).toBe("not_a_directory");
  });
});
