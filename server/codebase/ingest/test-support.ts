/**
 * Test scaffolding for the ingest tests: a sandbox directory per test with a snapshot destination,
 * an "outside" folder that hostile input aims at, and a full listing to prove nothing else changed.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { IngestError, type IngestErrorCode } from "./errors.ts";

export interface Sandbox {
  dir: string;
  /** Where the snapshot should land (absent until a successful ingest). */
  dest: string;
  /** A sibling folder with a sentinel file, the target of escape attempts. */
  outside: string;
  /** Unique names in os.tmpdir() that hostile archives try to create. */
  escapeTargets: string[];
  /** Every path under dir, with type and size (symlinks with their target). */
  listing(): Promise<string[]>;
  cleanup(): Promise<void>;
}

async function list(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    const st = await lstat(path.join(root, p));
    if (st.isSymbolicLink()) out.push(`${p} -> ${await readlink(path.join(root, p))}`);
    else if (st.isDirectory()) out.push(`${p}/`, ...(await list(root, p)));
    else out.push(`${p} (${st.size})`);
  }
  return out.sort();
}

export async function sandbox(): Promise<Sandbox> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "argus-ingest-test-"));
  const outside = path.join(dir, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "sentinel.txt"), "untouched\n");
  await mkdir(path.join(dir, "snapshots"));
  await mkdir(path.join(dir, "inputs"));
  const tag = randomBytes(6).toString("hex");
  return {
    dir,
    dest: path.join(dir, "snapshots", "snap-1"),
    outside,
    escapeTargets: [path.join(os.tmpdir(), `argus-escape-${tag}.txt`), path.join(os.tmpdir(), `argus-escape-${tag}`)],
    listing: () => list(dir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs fn, expects an IngestError with the code (and message pattern), and that nothing under dir changed. */
export async function expectRefusal(
  sb: Sandbox,
  fn: () => Promise<unknown>,
  code: IngestErrorCode,
  message?: RegExp,
): Promise<IngestError> {
  const before = await sb.listing();
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, "expected a refusal").toBeInstanceOf(IngestError);
  const err = caught as IngestError;
  expect(err.code, err.message).toBe(code);
  expect(err.kind).toBe("invalid");
  if (message) expect(err.message).toMatch(message);
  // No snapshot, no staging leftovers, nothing new anywhere in the sandbox or at the escape targets.
  expect(await sb.listing()).toEqual(before);
  expect(await readdir(path.join(sb.dir, "snapshots"))).toEqual([]);
  for (const t of sb.escapeTargets) await expect(lstat(t)).rejects.toThrow();
  return err;
}

export interface FixtureRepo {
  dir: string;
  /** c1 (tag v1) → c2 (main); dev branches off c2 with c3. */
  c1: string;
  c2: string;
  c3: string;
}

/**
 * Runs git in a fixture repository as a fixed author, ignoring the machine's and the user's git config
 * (a signing key or another default branch there must not change the fixture). Returns trimmed stdout.
 */
export function fixtureGit(dir: string): (...args: string[]) => string {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "Ada",
    GIT_AUTHOR_EMAIL: "ada@example.com",
    GIT_COMMITTER_NAME: "Ada",
    GIT_COMMITTER_EMAIL: "ada@example.com",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  return (...args) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
}

/** A small repository with history, a tag, a branch, a committed symlink and committed node_modules. */
export function makeFixtureRepo(dir: string): FixtureRepo {
  const git = fixtureGit(dir);
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  mkdirSync(dir, { recursive: true });
  git("init", "-q", "--initial-branch=main");
  put("src/index.ts", "export const version = 1;\n");
  put("README.md", "# App\n");
  put("node_modules/dep/index.js", "module.exports = 1;\n");
  symlinkSync("/etc/passwd", path.join(dir, "passwd-link"));
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  git("tag", "-a", "v1", "-m", "release 1");
  const c1 = git("rev-parse", "HEAD");
  put("src/index.ts", 'export const version = 2;\nexport const name = "app";\n');
  put("docs/guide.md", "# Guide\n");
  git("add", "-A");
  git("commit", "-q", "-m", "second: guide");
  const c2 = git("rev-parse", "HEAD");
  git("checkout", "-q", "-b", "dev");
  put("dev.ts", "export const dev = true;\n");
  git("add", "-A");
  git("commit", "-q", "-m", "dev work");
  const c3 = git("rev-parse", "HEAD");
  git("checkout", "-q", "main");
  return { dir, c1, c2, c3 };
}

export interface GitDaemon {
  /** Repositories created under base are served at url/<name>. */
  base: string;
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const p = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return p;
}

async function waitForPort(p: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(p, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("git daemon did not start");
}

/** A real `git daemon` on 127.0.0.1 (git:// is an allowed transport) serving a temp folder. */
export async function startGitDaemon(): Promise<GitDaemon> {
  const base = await mkdtemp(path.join(os.tmpdir(), "argus-git-daemon-"));
  const port = await freePort();
  const daemon = spawn(
    "git",
    ["daemon", "--reuseaddr", "--export-all", `--base-path=${base}`, "--listen=127.0.0.1", `--port=${port}`, base],
    { stdio: "ignore" },
  );
  await waitForPort(port);
  return {
    base,
    port,
    url: `git://127.0.0.1:${port}`,
    async stop() {
      daemon.kill();
      await rm(base, { recursive: true, force: true });
    },
  };
}

export const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

export interface TlsFixture {
  key: Buffer;
  cert: Buffer;
  /** The certificate as a file, for GIT_SSL_CAINFO. */
  caFile: string;
  cleanup(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost (needs the openssl command: check hasOpenssl). */
export async function makeTlsFixture(): Promise<TlsFixture> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "argus-tls-"));
  const keyFile = path.join(dir, "key.pem");
  const caFile = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ]),
    { stdio: "ignore" },
  );
  return {
    key: await readFile(keyFile),
    cert: await readFile(caFile),
    caFile,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface HttpsRecorder {
  port: number;
  /** The headers of every request received, in order. */
  requests: IncomingHttpHeaders[];
  stop(): Promise<void>;
}

/** An https server on 127.0.0.1 that records each request's headers and answers with `handler` (default 404). */
export async function startHttpsRecorder(
  tls: TlsFixture,
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(404);
    res.end();
  },
): Promise<HttpsRecorder> {
  const requests: IncomingHttpHeaders[] = [];
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    requests.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}
