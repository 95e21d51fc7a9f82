/**
 * The git source against a real `git daemon` on 127.0.0.1 (allowed the way an operator would allow it:
 * GIT_ALLOWED_HOSTS), and against a fake `git` on PATH to see exactly what argv and environment a
 * clone gets: the token header, the address pin, the isolated ssh.
 */
import { chmod, lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gitDiff, gitHead, gitLog, gitRefs } from "../git-meta.ts";
import { IngestError } from "./errors.ts";
import { ingestGit, type GitIngestOptions } from "./git.ts";
import {
  expectRefusal,
  freePort,
  makeFixtureRepo,
  sandbox,
  startGitDaemon,
  type FixtureRepo,
  type GitDaemon,
  type Sandbox,
} from "./test-support.ts";

let daemon: GitDaemon;
let repoUrl: string;
let port: number;
let repo: FixtureRepo;

beforeAll(async () => {
  daemon = await startGitDaemon();
  repo = makeFixtureRepo(path.join(daemon.base, "app"));
  port = daemon.port;
  repoUrl = `${daemon.url}/app`;
});

afterAll(async () => {
  await daemon?.stop();
});

/** The daemon listens on 127.0.0.1, which only an operator's allow list lets a fetch reach. */
const LOCAL = { allowedHosts: ["127.0.0.1"] };
const ingestLocal = (o: GitIngestOptions) => ingestGit({ network: LOCAL, ...o });

let sb: Sandbox;
beforeEach(async () => {
  sb = await sandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

describe("ingestGit over git://", () => {
  it("clones the default branch shallowly; symlinks are not materialised, committed node_modules is not indexed", async () => {
    const phases = new Set<string>();
    const summary = await ingestLocal({ url: repoUrl, dest: sb.dest, onProgress: (p) => phases.add(p.phase) });
    expect(summary.git).toEqual({ url: repoUrl, commit: repo.c2, branch: "main", depth: 1 });
    expect(summary.walk.files.map((f) => f.path)).toEqual(["README.md", "docs/guide.md", "src/index.ts"]);
    expect(summary.walk.ignored).toEqual([".git/", "node_modules/"]);
    expect(summary.dropped).toEqual([{ path: "passwd-link", reason: "symlink" }]);
    await expect(lstat(path.join(sb.dest, "passwd-link"))).rejects.toThrow();
    expect(await readFile(path.join(sb.dest, "src/index.ts"), "utf8")).toContain("version = 2");
    expect(phases).toEqual(new Set(["cloning", "checking_out", "indexing", "done"]));

    const head = await gitHead(sb.dest);
    expect(head).toMatchObject({
      branch: "main",
      shallow: true,
      commit: { sha: repo.c2, subject: "second: guide", authorName: "Ada" },
    });
  });

  it("clones a branch and a tag", async () => {
    const dev = await ingestLocal({ url: repoUrl, branch: "dev", dest: sb.dest });
    expect(dev.git).toMatchObject({ commit: repo.c3, branch: "dev" });
    expect(dev.walk.files.map((f) => f.path)).toContain("dev.ts");

    const tagDest = path.join(sb.dir, "snapshots", "snap-tag");
    const tag = await ingestLocal({ url: repoUrl, tag: "v1", dest: tagDest });
    expect(tag.git).toMatchObject({ commit: repo.c1, tag: "v1" });
    expect(tag.walk.files.map((f) => f.path)).toEqual(["README.md", "src/index.ts"]);
    expect((await gitHead(tagDest)).branch).toBeNull();
  });

  it("fetches one commit by id", async () => {
    const summary = await ingestLocal({ url: repoUrl, commit: repo.c1, dest: sb.dest });
    expect(summary.git).toMatchObject({ commit: repo.c1 });
    expect((await gitHead(sb.dest)).commit.sha).toBe(repo.c1);
  });

  it("serves git-meta on a deeper clone: diff between refs (optionally by path), log (optionally for a path), refs", async () => {
    await ingestLocal({ url: repoUrl, dest: sb.dest, depth: 5 });
    const diff = await gitDiff(sb.dest, { from: "v1", to: "HEAD" });
    expect(diff.from).toBe(repo.c1);
    expect(diff.to).toBe(repo.c2);
    expect(diff.files).toEqual([
      { path: "docs/guide.md", status: "A", additions: 1, deletions: 0 },
      { path: "src/index.ts", status: "M", additions: 2, deletions: 1 },
    ]);
    expect(diff.patch).toContain('+export const name = "app";');
    const onlyDocs = await gitDiff(sb.dest, { from: "HEAD~1", paths: ["docs"] });
    expect(onlyDocs.files.map((f) => f.path)).toEqual(["docs/guide.md"]);
    expect(onlyDocs.patch).not.toContain("src/index.ts");

    const log = await gitLog(sb.dest);
    expect(log.commits.map((c) => c.subject)).toEqual(["second: guide", "first"]);
    expect((await gitLog(sb.dest, { path: "docs/guide.md" })).commits.map((c) => c.sha)).toEqual([repo.c2]);
    expect((await gitLog(sb.dest, { limit: 1 })).truncated).toBe(true);

    const refs = await gitRefs(sb.dest);
    expect(refs.branches.map((b) => b.name)).toEqual(expect.arrayContaining(["main", "origin/main"]));
    expect(refs.tags).toEqual([{ name: "v1", commit: repo.c1 }]);
  });

  it("gives clear errors for no repository, a missing branch or commit, an unreachable host", async () => {
    await expectRefusal(
      sb,
      () => ingestLocal({ url: `git://127.0.0.1:${port}/nope.git`, dest: sb.dest }),
      "repo_not_found",
      /no git repository/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, branch: "nope", dest: sb.dest }),
      "ref_not_found",
      /no branch "nope"/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, commit: "1".repeat(40), dest: sb.dest }),
      "ref_not_found",
      /no commit/,
    );
    const closed = await freePort();
    await expectRefusal(
      sb,
      () => ingestLocal({ url: `git://127.0.0.1:${closed}/app`, dest: sb.dest }),
      "host_unreachable",
    );
  });

  it("refuses over the caps before checking anything out, and stops at the time limit", async () => {
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, dest: sb.dest, limits: { maxFiles: 2 } }),
      "cap_files",
      /INGEST_MAX_FILES/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, dest: sb.dest, limits: { maxFileBytes: 20 } }),
      "cap_file_bytes",
      /INGEST_MAX_FILE_MB/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, dest: sb.dest, limits: { maxTotalBytes: 50 } }),
      "cap_total_bytes",
      /INGEST_MAX_TOTAL_MB/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, dest: sb.dest, limits: { gitTimeoutMs: 1 } }),
      "timeout",
      /INGEST_GIT_TIMEOUT_SECONDS/,
    );
  });

  it("refuses bad URLs and refs before running git", async () => {
    await expectRefusal(
      sb,
      () => ingestLocal({ url: "ext::sh -c touch% /tmp/pwned", dest: sb.dest }),
      "transport_refused",
    );
    await expectRefusal(sb, () => ingestLocal({ url: `file://${repo.dir}`, dest: sb.dest }), "transport_refused");
    await expectRefusal(sb, () => ingestLocal({ url: repo.dir, dest: sb.dest }), "transport_refused");
    await expectRefusal(
      sb,
      () => ingestLocal({ url: "--upload-pack=touch /tmp/pwned", dest: sb.dest }),
      "transport_refused",
    );
    await expectRefusal(sb, () => ingestLocal({ url: repoUrl, branch: "--upload-pack=x", dest: sb.dest }), "bad_ref");
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, branch: "main", tag: "v1", dest: sb.dest }),
      "bad_ref",
      /only one/,
    );
    await expectRefusal(
      sb,
      () => ingestLocal({ url: repoUrl, accessToken: "tok", dest: sb.dest }),
      "bad_url",
      /only with an https URL/,
    );
  });
});

/** A resolver that answers a public address for any name (the fake-git tests never go online). */
const PUBLIC = { resolve: async () => ["140.82.112.3"] };

describe("ingestGit with a fake git on PATH: token, pins, ssh", () => {
  const TOKEN = "ghp_S3cretT0kenValue42";
  let bin: string;
  let record: string;
  let savedPath: string | undefined;

  beforeEach(async () => {
    bin = path.join(sb.dir, "bin");
    record = path.join(daemon.base, `git-call-${path.basename(sb.dir)}.txt`); // outside the sandbox, which must stay unchanged
    await mkdir(bin);
    // Records argv and the environment, then fails the way an https remote refusing the token does —
    // echoing the token, as a misbehaving server or proxy might.
    await writeFile(
      path.join(bin, "git"),
      `#!/bin/sh\n{ printf '%s\\n' "$@"; echo ENV; env; } > "${record}"\necho "fatal: unable to access 'https://git.example.invalid/o/r.git/': The requested URL returned error: 403 (${TOKEN})" >&2\nexit 128\n`,
    );
    await chmod(path.join(bin, "git"), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
  });
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it("passes the token only as an origin-scoped header in the environment, and never shows it", async () => {
    const err = await expectRefusal(
      sb,
      () =>
        ingestGit({ url: "https://git.example.invalid/o/r.git", accessToken: TOKEN, dest: sb.dest, network: PUBLIC }),
      "auth_failed",
      /token was refused/,
    );
    expect(err.message).not.toContain(TOKEN);
    const [argv = "", env = ""] = (await readFile(record, "utf8")).split("\nENV\n");
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");
    expect(argv).not.toContain(TOKEN);
    expect(argv).not.toContain(basic);
    const args = argv.split("\n");
    expect(args).toEqual(
      expect.arrayContaining(["credential.helper=", "protocol.allow=never", "protocol.https.allow=always"]),
    );
    expect(args.slice(-3)).toEqual(["--", "https://git.example.invalid/o/r.git", expect.stringContaining("tree")]);
    expect(env).toContain("GIT_TERMINAL_PROMPT=0");
    expect(env).toContain("GIT_CONFIG_KEY_0=http.https://git.example.invalid/.extraHeader");
    expect(env).toContain(`GIT_CONFIG_VALUE_0=Authorization: Basic ${basic}`);
    expect(env).not.toContain(`=${TOKEN}`);
    // Pinned to the address that was checked; redirects (to a host nobody checked) are not followed.
    expect(env).toContain("GIT_CONFIG_KEY_1=http.curloptResolve");
    expect(env).toContain("GIT_CONFIG_VALUE_1=git.example.invalid:443:140.82.112.3");
    expect(args).toEqual(expect.arrayContaining(["http.followRedirects=false"]));
  });

  it("scrubs the token from an unclassified failure too", async () => {
    await writeFile(path.join(bin, "git"), `#!/bin/sh\necho "fatal: something odd about ${TOKEN}" >&2\nexit 128\n`);
    const err = await ingestGit({
      url: "https://git.example.invalid/o/r.git",
      accessToken: TOKEN,
      dest: sb.dest,
      network: PUBLIC,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IngestError);
    expect((err as IngestError).code).toBe("git_failed");
    expect((err as IngestError).message).toContain("something odd about ***");
    expect((err as IngestError).message).not.toContain(TOKEN);
  });

  it("runs ssh without the server's keys, agent or config, pinned to the checked address", async () => {
    const savedSock = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = "/tmp/argus-test-agent.sock";
    try {
      const url = "git@git.example.invalid:o/r.git";
      await ingestGit({ url, dest: sb.dest, network: PUBLIC }).catch(() => undefined);
      let [argv = "", env = ""] = (await readFile(record, "utf8")).split("\nENV\n");
      expect(argv.split("\n").slice(-3)).toEqual(["--", url, expect.stringContaining("tree")]);
      const sshLine = env.split("\n").find((l) => l.startsWith("GIT_SSH_COMMAND="));
      expect(sshLine).toBe(
        "GIT_SSH_COMMAND=ssh -F /dev/null -o IdentitiesOnly=yes -o IdentityFile=none -o IdentityAgent=none " +
          "-o BatchMode=yes -o ConnectTimeout=30 -o HostName=140.82.112.3 -o HostKeyAlias=git.example.invalid",
      );
      expect(env).not.toContain("SSH_AUTH_SOCK");

      // The operator may let clones use the server's own keys (GIT_SSH_USE_SERVER_KEYS=true).
      await ingestGit({ url, dest: sb.dest, network: { ...PUBLIC, useServerSshKeys: true } }).catch(() => undefined);
      [argv = "", env = ""] = (await readFile(record, "utf8")).split("\nENV\n");
      expect(env).toContain("SSH_AUTH_SOCK=/tmp/argus-test-agent.sock");
      expect(env).not.toContain("/dev/null -o IdentitiesOnly");
    } finally {
      if (savedSock === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = savedSock;
    }
  });

  it("gives git:// the checked address instead of the name", async () => {
    await ingestGit({ url: "git://git.example.invalid/o/r.git", dest: sb.dest, network: PUBLIC }).catch(
      () => undefined,
    );
    const [argv = ""] = (await readFile(record, "utf8")).split("\nENV\n");
    expect(argv.split("\n").slice(-3)).toEqual([
      "--",
      "git://140.82.112.3:9418/o/r.git",
      expect.stringContaining("tree"),
    ]);
  });

  it("refuses a token that could inject headers", async () => {
    await expectRefusal(
      sb,
      () => ingestGit({ url: "https://git.example.invalid/o/r.git", accessToken: "a\r\nX-Evil: 1", dest: sb.dest }),
      "bad_url",
    );
  });
});
