/**
 * Git imports are the server fetching a URL a member typed: remote helpers that run commands (ext::),
 * local files (file://, paths), option injection (a URL or ref starting with "-"), and server-side
 * request forgery — private, loopback, link-local and multicast addresses in every spelling. Each is
 * refused with a message, nothing runs, and no connection reaches a listener standing in for an
 * internal service. A stored access token is bound to its origin: re-importing from another host
 * must not send it there.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAuthSecret } from "../../server/auth/secret.ts";
import { createSecretBox } from "../../server/lib/secret-box.ts";
import type { IngestJob } from "../../server/snapshots/job.ts";
import { createTestConfig } from "../helpers/db.ts";
import { inviteAndSignUp, signUp, startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { expectMessage } from "./support/expect.ts";
import { newProject } from "./support/world.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let listener: net.Server;
let port: number;
let connections = 0;
const jobs: IngestJob[] = [];
const marker = path.join(os.tmpdir(), `argus-pwned-${randomBytes(6).toString("hex")}`);
const storedToken = `ghp_STORED${randomBytes(10).toString("hex")}`;

beforeAll(async () => {
  // A short git time limit: a fetch that should have been refused must not hold the suite for minutes.
  server = await startTestServer(await createTestConfig({ INGEST_GIT_TIMEOUT_SECONDS: "4" }));
  owner = await signUp(server.url, { name: "Owner" });
  member = await inviteAndSignUp(owner, "member", "Member");
  // Stands in for an internal service (Redis, a metadata endpoint): counts every connection.
  listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as net.AddressInfo).port;
  const queue = server.services.queue;
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = (kind, payload) => {
    if (kind === "snapshot.ingest") jobs.push(payload as IngestJob);
    return enqueue(kind, payload);
  };
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
  await server?.stop();
});

type Outcome = { status: number; message: string; ran: boolean };

/** importGit, then (if it was accepted) the import's end: refused up front or failed, with its message. */
async function importGit(user: TestUser, url: string, extra: Record<string, string> = {}): Promise<Outcome> {
  const projectUid = await newProject(owner, owner.workspaceId, `g-${randomBytes(3).toString("hex")}`);
  const before = jobs.length;
  const r = await user.client.mutate<{ uid: string }>("snapshots.importGit", { projectUid, url, ...extra });
  if (r.status !== 200) return { status: r.status, message: r.error?.message ?? "", ran: jobs.length > before };
  await server.services.queue.idle();
  const snap = await server.services.db.snapshot.findUniqueOrThrow({ where: { uid: r.data.uid } });
  return { status: snap.status === "ready" ? 200 : 0, message: snap.message ?? "", ran: true };
}

describe("URLs that would run commands or read local files are refused before anything runs", () => {
  const urls = [
    `ext::sh -c touch% ${marker}`,
    `ext::sh -c "touch ${marker}"`,
    "fd::17",
    "file:///etc",
    `file://${process.cwd()}`,
    "/etc",
    "../../../etc",
    `--upload-pack=touch ${marker}`,
    `-u touch ${marker}`,
    `https://example.test/x.git --upload-pack=touch ${marker}`,
    `ssh://-oProxyCommand=touch%20${marker}/x`,
    `git@-oProxyCommand=touch:x`,
  ];
  for (const url of urls) {
    it(url, async () => {
      const r = await importGit(member, url);
      expect(r.status, r.message).toBe(400);
      expectMessage(r.message);
      expect(r.ran, "a job was queued").toBe(false);
      expect(existsSync(marker)).toBe(false);
    });
  }

  it("a ref that is an option is refused too", async () => {
    for (const ref of [`--upload-pack=touch ${marker}`, "-c", "--output=/tmp/x"]) {
      const r = await importGit(member, `git://127.0.0.1:${port}/repo.git`, { ref });
      expect(r.status, r.message).not.toBe(200);
      expectMessage(r.message);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe("server-side request forgery: internal addresses are refused, in every spelling", () => {
  // The issue's targets verbatim, then the same places over transports that are otherwise allowed.
  const verbatim = [
    "https://10.0.0.1/x",
    "http://169.254.169.254/",
    "git://127.0.0.1:6379",
    "http://[::1]/",
    "http://2130706433/",
  ];
  const unreachable = [
    "https://169.254.169.254/latest/meta-data/iam",
    "https://192.168.1.1/repo.git",
    "https://172.16.0.1/repo.git",
    "git://10.1.2.3/repo.git",
    "https://224.0.0.1/repo.git",
    "https://[fd00::1]/repo.git",
    "https://[fe80::1]/repo.git",
  ];
  // These point at the listener: a connection there is the forgery happening.
  const observed = () => [
    `git://127.0.0.1:${port}/repo.git`,
    `https://127.0.0.1:${port}/repo.git`,
    `https://localhost:${port}/repo.git`,
    `https://127.1:${port}/repo.git`,
    `https://2130706433:${port}/repo.git`,
    `https://0x7f000001:${port}/repo.git`,
    `https://0177.0.0.1:${port}/repo.git`,
    `https://[::ffff:127.0.0.1]:${port}/repo.git`,
    `git://0.0.0.0:${port}/repo.git`,
    `ssh://git@127.0.0.1:${port}/repo.git`,
    `git@127.0.0.1:repo.git`,
  ];
  /** Wording that means git tried to connect (the error-class oracle the issue describes). */
  const triedToConnect =
    /unreachable|can't be reached|timed? ?out|took longer|connection refused|could not (connect|fetch)|unable to access|no route|reset by peer|handshake|certificate|SSL/i;

  for (const url of verbatim) {
    it(
      url,
      async () => {
        const r = await importGit(member, url);
        expect(r.status, r.message).not.toBe(200);
        expectMessage(r.message);
        expect(r.message, "the refusal came from trying to connect").not.toMatch(triedToConnect);
      },
      30_000,
    );
  }

  it("private, link-local, multicast and unique-local addresses", async () => {
    const problems: string[] = [];
    for (const url of unreachable) {
      const r = await importGit(member, url);
      if (r.status === 200 || !/^\S.{9,}/s.test(r.message.trim()) || triedToConnect.test(r.message))
        problems.push(`${url}: ${r.status} ${r.message}`);
    }
    expect(problems).toEqual([]);
  }, 90_000);

  it("loopback in every spelling: refused, and nothing connects to the service behind it", async () => {
    const problems: string[] = [];
    for (const url of observed()) {
      const before = connections;
      const r = await importGit(member, url);
      if (r.status === 200 || !/^\S.{9,}/s.test(r.message.trim())) problems.push(`${url}: ${r.status} ${r.message}`);
      if (connections > before) problems.push(`${url}: connected to the internal service`);
    }
    expect(problems).toEqual([]);
  }, 90_000);
});

describe("a stored git token is bound to the origin it was given for", () => {
  it("a member re-importing from another host does not get the stored token sent there", async () => {
    const projectUid = await newProject(owner, owner.workspaceId, "private repo");
    const { db, config } = server.services;
    const box = createSecretBox(resolveAuthSecret(config), "git-tokens");
    // What importGit stores when the owner first imports https://git.example.test/acme/app.git with a token.
    await db.project.update({
      where: { uid: projectUid },
      data: { gitUrl: "https://git.example.test/acme/app.git", gitTokenCipher: box.seal(storedToken) },
    });
    const before = jobs.length;
    const r = await member.client.mutate("snapshots.importGit", {
      projectUid,
      url: "https://attacker.example.test/collect.git",
    });
    if (r.status !== 200) {
      // Refused outright (e.g. the host does not resolve): then nothing was queued with the token either.
      expectMessage(r.error?.message);
    }
    const queued = jobs.slice(before).map((j) => j.source);
    for (const source of queued) {
      expect(source.kind).toBe("git");
      const cipher = source.kind === "git" ? source.tokenCipher : undefined;
      expect(cipher ? box.open(cipher) : undefined, "the stored token went with a new origin").not.toBe(storedToken);
    }
    await server.services.queue.idle();
  });
});
