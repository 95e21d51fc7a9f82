import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError } from "../errors.ts";
import { checkRev, gitDiff, gitHead, gitLog, gitRefs, isGitCheckout } from "./git-meta.ts";
import { makeFixtureRepo, type FixtureRepo } from "./ingest/test-support.ts";

let tmp: string;
let repo: FixtureRepo;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "argus-git-meta-"));
  repo = makeFixtureRepo(path.join(tmp, "repo"));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function domainError(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe("git-meta", () => {
  it("reads the current commit, branch and refs of a full checkout", async () => {
    expect(await isGitCheckout(repo.dir)).toBe(true);
    const head = await gitHead(repo.dir);
    expect(head.branch).toBe("main");
    expect(head.shallow).toBe(false);
    expect(head.commit).toMatchObject({
      sha: repo.c2,
      parents: [repo.c1],
      authorEmail: "ada@example.com",
      subject: "second: guide",
    });
    expect(head.commit.authoredAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const refs = await gitRefs(repo.dir);
    expect(refs.branches).toEqual([
      { name: "dev", commit: repo.c3 },
      { name: "main", commit: repo.c2 },
    ]);
    expect(refs.tags).toEqual([{ name: "v1", commit: repo.c1 }]);
  });

  it("diffs two refs, optionally for some paths only, and logs a branch or a path", async () => {
    const diff = await gitDiff(repo.dir, { from: "main", to: "dev" });
    expect(diff.files).toEqual([{ path: "dev.ts", status: "A", additions: 1, deletions: 0 }]);
    expect(
      (await gitDiff(repo.dir, { from: repo.c1, to: "dev", paths: ["src/index.ts"] })).files.map((f) => f.path),
    ).toEqual(["src/index.ts"]);
    // Pathspecs are literal: a glob matches no file.
    expect((await gitDiff(repo.dir, { from: repo.c1, to: "dev", paths: ["*.ts"] })).files).toEqual([]);
    expect((await gitLog(repo.dir, { ref: "dev", limit: 2 })).commits.map((c) => c.sha)).toEqual([repo.c3, repo.c2]);
    expect((await gitLog(repo.dir, { path: "README.md" })).commits.map((c) => c.sha)).toEqual([repo.c1]);
  });

  it("bounds a large diff and says it was cut", async () => {
    const dir = path.join(tmp, "big");
    await mkdir(dir);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=A", "-c", "user.email=a@b", ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
      });
    git("init", "-q");
    await writeFile(path.join(dir, "a.txt"), "start\n");
    git("add", "-A");
    git("commit", "-q", "-m", "one");
    await writeFile(path.join(dir, "a.txt"), Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n"));
    git("commit", "-q", "-am", "two");
    const diff = await gitDiff(dir, { from: "HEAD~1", maxBytes: 4096 });
    expect(diff.truncated).toBe(true);
    expect(diff.patch.length).toBeLessThanOrEqual(4096);
    expect(diff.files).toEqual([{ path: "a.txt", status: "M", additions: 5000, deletions: 1 }]);
  });

  it("refuses option-like, range and path-revision input, and paths that leave the tree", async () => {
    for (const bad of ["-p", "--output=/tmp/argus-git-meta-pwned", "main..dev", "HEAD:README.md", "a b", ""]) {
      expect(() => checkRev(bad), bad).toThrow(DomainError);
      expect((await domainError(gitLog(repo.dir, { ref: bad }))).kind).toBe("invalid");
    }
    await expect(lstat("/tmp/argus-git-meta-pwned")).rejects.toThrow();
    expect((await domainError(gitDiff(repo.dir, { from: "main", paths: ["../outside"] }))).kind).toBe("invalid");
    expect((await domainError(gitLog(repo.dir, { path: "/etc/passwd" }))).kind).toBe("invalid");
    const unknown = await domainError(gitDiff(repo.dir, { from: "no-such-branch" }));
    expect(unknown.kind).toBe("not_found");
    expect(unknown.message).toMatch(/no commit "no-such-branch"/);
  });

  it("says so for a snapshot without git history, and never follows a symlinked .git", async () => {
    const plain = path.join(tmp, "plain");
    await mkdir(plain);
    expect(await isGitCheckout(plain)).toBe(false);
    expect((await domainError(gitHead(plain))).message).toMatch(/no git history/);
    const linked = path.join(tmp, "linked");
    await mkdir(linked);
    await symlink(path.join(repo.dir, ".git"), path.join(linked, ".git"));
    expect(await isGitCheckout(linked)).toBe(false);
    expect((await domainError(gitLog(linked))).kind).toBe("not_found");
  });
});
