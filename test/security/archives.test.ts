/**
 * Hostile uploads through the real upload route (what a member's browser — or an attacker with a
 * member's cookie — can send): zip-slip, absolute and drive paths, NUL and over-long names, symlink
 * entries (and writing through them), bombs by ratio and by size, a lying size header, 100k tiny
 * files, corrupt and encrypted archives, and multipart file names that climb. Every one is refused
 * with a message (400) or, for symlink entries, imported with the link dropped and reported; nothing
 * is ever written outside the snapshot, and the server keeps answering.
 *
 * The server runs with small caps (as an operator would set them) so the size cases stay fast.
 */
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { buildZip, type ZipEntrySpec } from "../helpers/zip.ts";
import { HOST_FILE_MARKERS, findLeaks } from "./support/canaries.ts";
import { expectMessage } from "./support/expect.ts";
import { postBody } from "./support/wire.ts";
import { newProject } from "./support/world.ts";

const MiB = 1024 * 1024;
const CAPS = {
  INGEST_MAX_FILES: "20000",
  INGEST_MAX_ARCHIVE_ENTRIES: "50000",
  INGEST_MAX_TOTAL_MB: "12",
  INGEST_MAX_FILE_MB: "1",
};

let server: TestServer;
let owner: TestUser;
const tag = randomBytes(6).toString("hex");
/** Where escapes aim: a unique name in the temp folder, and one next to DATA_DIR's projects folder. */
const escapeName = `argus-escape-${tag}.txt`;
let escapeTargets: string[];

beforeAll(async () => {
  server = await startTestServer(await createTestConfig(CAPS));
  owner = await signUp(server.url, { name: "Owner" });
  escapeTargets = [path.join(os.tmpdir(), escapeName), path.join(server.services.config.dataDir, escapeName)];
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

const ok = (name: string, data = "export const ok = 1;\n"): ZipEntrySpec => ({ name, data });
const climb = (depth: number) => `${"../".repeat(depth)}${os.tmpdir().slice(1)}/${escapeName}`;
const symlink = (name: string, target: string): ZipEntrySpec => ({ name, data: target, mode: 0o120777 });
/** Bytes that deflate barely shrinks (so only the size caps can stop them, not the ratio cap). */
const incompressible = (bytes: number) => randomBytes(bytes);

/** Every path under dir that is a symbolic link. */
function symlinksUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (lstatSync(p).isSymbolicLink()) out.push(p);
    else if (e.isDirectory()) out.push(...symlinksUnder(p));
  }
  return out;
}

function expectNoEscape() {
  for (const t of escapeTargets) expect(existsSync(t), `${t} was written`).toBe(false);
}

async function upload(zip: Buffer) {
  const projectUid = await newProject(owner, owner.workspaceId, `p-${randomBytes(3).toString("hex")}`);
  const res = await postBody(
    server.url,
    `/api/projects/${projectUid}/upload?kind=zip`,
    { cookie: owner.client.cookie, origin: server.url, "content-type": "application/zip" },
    zip,
  );
  return { projectUid, status: res.status, body: JSON.parse(res.body) as { message?: string; snapshotUid?: string } };
}

/**
 * A refusal: 400 (413 when it is about size) with a message; no snapshot, or one failed with the
 * same message and its files gone; nothing written outside.
 */
async function expectRefused(zip: Buffer, message?: RegExp, status = 400) {
  const r = await upload(zip);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expectMessage(r.body.message);
  if (message) expect(r.body.message).toMatch(message);
  // Refused before a snapshot was even begun (a body over the cap), or begun and marked failed.
  const snap = await server.services.db.snapshot.findFirst({
    where: { project: { uid: r.projectUid } },
    orderBy: { createdAt: "desc" },
  });
  if (snap) {
    expect(snap.status).toBe("failed");
    expect(snap.message).toBe(r.body.message);
    const dir = path.join(server.services.config.dataDir, "projects", snap.projectId, "snapshots", snap.id);
    expect(existsSync(dir), "the refused snapshot left files").toBe(false);
  }
  expectNoEscape();
  return r.body.message!;
}

describe("archive entries that aim outside the snapshot are refused", () => {
  const cases: [string, ZipEntrySpec[]][] = [
    ["zip-slip with ../", [ok("a.ts"), ok(climb(20), "pwned\n")]],
    ["zip-slip from inside a folder", [ok("src/a.ts"), ok(`src/${climb(21)}`, "pwned\n")]],
    ["zip-slip with backslashes", [ok("a.ts"), ok(climb(20).replace(/\//g, "\\"), "pwned\n")]],
    ["an absolute entry", [ok("a.ts"), ok(path.join(os.tmpdir(), escapeName), "pwned\n")]],
    ["a Windows drive entry", [ok("a.ts"), ok(`C:\\${escapeName}`, "pwned\n")]],
    ["a UNC entry", [ok("a.ts"), ok(`\\\\host\\share\\${escapeName}`, "pwned\n")]],
    ["a NUL in the name", [ok("a.ts"), ok(`src/a.ts\u0000${climb(20)}`, "pwned\n")]],
    ["a name longer than any file system allows", [ok("a.ts"), ok(`${"x".repeat(5000)}.ts`)]],
  ];
  for (const [name, entries] of cases) it(name, () => expectRefused(buildZip(entries)).then(() => undefined));
});

describe("symlink entries are never created, so nothing can be read or written through them", () => {
  const cases: [string, ZipEntrySpec[]][] = [
    ["a link to a host file", [ok("a.ts"), symlink("passwd", "/etc/passwd")]],
    [
      "a link to the temp folder, then a file written through it",
      [ok("a.ts"), symlink("tmp", os.tmpdir()), ok(`tmp/${escapeName}`)],
    ],
    [
      "a link climbing out, then a file written through it",
      [ok("a.ts"), symlink("up", "../../../../../../.."), ok(`up/tmp/${escapeName}`)],
    ],
    ["a link to DATA_DIR's secret", [ok("a.ts"), symlink("secret", "../../../../auth-secret")]],
  ];
  for (const [name, entries] of cases) {
    it(name, async () => {
      const r = await upload(buildZip(entries));
      // Refusing the archive is fine; so is importing it without the link (reported as dropped).
      expect([201, 400], JSON.stringify(r.body)).toContain(r.status);
      expectNoEscape();
      if (r.status === 400) return void expectMessage(r.body.message);
      await server.services.queue.idle();
      const snap = await server.services.db.snapshot.findUniqueOrThrow({ where: { uid: r.body.snapshotUid! } });
      const dir = path.join(server.services.config.dataDir, "projects", snap.projectId, "snapshots", snap.id);
      expect(symlinksUnder(dir)).toEqual([]);
      for (const rel of ["passwd", "secret", "tmp", "up"]) {
        const file = await owner.client.query("snapshots.file", { snapshotUid: snap.uid, path: rel });
        expect(file.status).not.toBe(200);
        expect(findLeaks(file.body, HOST_FILE_MARKERS)).toEqual([]);
      }
    });
  }
});

describe("bombs and floods are refused before they fill the disk", () => {
  it("a bomb by ratio: 2.7 MB of zeros in a few KB (every entry and the total under the size caps)", async () => {
    const zeros = [0, 1, 2].map((i) => ({ name: `zeros-${i}.txt`, data: Buffer.alloc(0.9 * MiB) }));
    await expectRefused(buildZip([ok("a.ts"), ...zeros]), /ratio|INGEST_MAX_COMPRESSION_RATIO/i);
  });

  it("a bomb by size: entries under the single-file cap that pass the total cap together", async () => {
    const entries = Array.from({ length: 14 }, (_, i) => i).map((i) => ({
      name: `blob-${i}.txt`,
      data: incompressible(0.9 * MiB),
      method: "store" as const,
    }));
    await expectRefused(buildZip([ok("a.ts"), ...entries]), /INGEST_MAX_TOTAL_MB|total/i, 413);
  });

  it("one file over the single-file cap", async () => {
    await expectRefused(
      buildZip([ok("a.ts"), { name: "big.txt", data: incompressible(1.5 * MiB), method: "store" }]),
      /INGEST_MAX_FILE_MB/,
      413,
    );
  });

  it("a size header that lies (declares 100 bytes, inflates to 1.5 MB)", async () => {
    await expectRefused(
      buildZip([ok("a.ts"), { name: "liar.txt", data: Buffer.alloc(1.5 * MiB, "a"), declaredUncompressedSize: 100 }]),
    );
  });

  it("100k tiny files are refused from the central directory alone (the entry cap), at once", async () => {
    const entries: ZipEntrySpec[] = [];
    for (let i = 0; i < 100_000; i++) entries.push({ name: `f/${i}.ts`, data: "1", method: "store" });
    const zip = buildZip(entries);
    const started = Date.now();
    const message = await expectRefused(zip, /INGEST_MAX_ARCHIVE_ENTRIES/);
    expect(message).toMatch(/100000/); // says how many there were
    expect(Date.now() - started, "the refusal waited for the archive to be read").toBeLessThan(10_000);
  }, 60_000);

  it("files past the file-count cap are refused before any is written", async () => {
    const entries: ZipEntrySpec[] = [];
    for (let i = 0; i < 20_001; i++) entries.push({ name: `f/${i}.ts`, data: "1", method: "store" });
    await expectRefused(buildZip(entries), /INGEST_MAX_FILES/);
  }, 60_000);
});

describe("archives that are not what they claim are refused", () => {
  it("random bytes, a truncated zip, a bad checksum, an encrypted entry, an unknown method, duplicates", async () => {
    const good = buildZip([ok("a.ts"), ok("b.ts")]);
    await expectRefused(randomBytes(4096));
    await expectRefused(good.subarray(0, good.length - 30));
    await expectRefused(buildZip([ok("a.ts"), { name: "b.ts", data: "x\n", crc: 1234 }]));
    await expectRefused(buildZip([ok("a.ts"), { name: "b.ts", data: "x\n", encrypted: true }]));
    await expectRefused(buildZip([ok("a.ts"), { name: "b.ts", data: "x\n", rawMethod: 12 }]));
    await expectRefused(buildZip([ok("a.ts"), ok("a.ts", "other\n")]));
    await expectRefused(buildZip([ok("a"), ok("a/b.ts")]));
  });
});

describe("multipart uploads whose file names climb are refused", () => {
  for (const kind of ["files", "folder"]) {
    it(kind, async () => {
      for (const name of [
        climb(20),
        `picked/${climb(21)}`,
        path.join(os.tmpdir(), escapeName),
        "..\\..\\x.ts",
        "a\u0000/../../x.ts",
      ]) {
        const projectUid = await newProject(owner, owner.workspaceId, `m-${randomBytes(3).toString("hex")}`);
        const form = new FormData();
        form.append("file", new Blob(["export const ok = 1;\n"]), kind === "folder" ? "picked/a.ts" : "a.ts");
        form.append("file", new Blob(["pwned\n"]), name);
        const res = await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=${kind}`, {
          method: "POST",
          headers: { cookie: owner.client.cookie, origin: server.url },
          body: form,
        });
        const body = (await res.json()) as { message?: string };
        expect(res.status, `${kind} ${JSON.stringify(name)}: ${JSON.stringify(body)}`).toBe(400);
        expectMessage(body.message);
        expectNoEscape();
      }
    });
  }

  it("the server still answers after all of it", async () => {
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});
