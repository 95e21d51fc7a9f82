/**
 * Code uploads are counted while they stream and stopped at INGEST_MAX_TOTAL_MB (1 MB here): the
 * answer is 413 naming the cap and its variable, it comes while most of the body was never sent, and
 * nothing is left on disk — no temp zip, no snapshot files.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { multipartFrame, postDeclaredOnly, postStreaming } from "../../test/helpers/streaming-upload.ts";
import { buildZip } from "../../test/helpers/zip.ts";
import { snapshotDirs } from "./storage.ts";

const MB = 1024 * 1024;
const CAP_MESSAGE =
  "The upload is larger than the total-size cap (1 MB; INGEST_MAX_TOTAL_MB). Leave out data, dependencies and build output, or ask the operator to raise the cap.";

let server: TestServer;
let owner: TestUser;
let tmp: string;
let savedTmp: string | undefined;

beforeAll(async () => {
  // The zip's temp folder goes to os.tmpdir(): a private one shows exactly what this server left there.
  tmp = await mkdtemp(path.join(os.tmpdir(), "argus-upload-test-"));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  server = await startTestServer(await createTestConfig({ INGEST_MAX_TOTAL_MB: "1" }));
  owner = await signUp(server.url, { name: "Owner" });
});
afterAll(async () => {
  await server?.stop();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  await rm(tmp, { recursive: true, force: true });
});

async function newProject(): Promise<string> {
  const uid = crypto.randomUUID();
  await owner.client.ok("mutate", "projects.create", { workspaceId: owner.workspaceId, uid, name: uid.slice(0, 8) });
  return uid;
}

type Snapshot = { uid: string; status: string; message: string | null };

/** What the refused upload left: its snapshot rows, and whether any snapshot or temp files remain. */
async function leftovers(projectUid: string) {
  await server.services.queue.idle();
  const snapshots = await owner.client.ok<Snapshot[]>("query", "snapshots.list", { projectUid });
  const project = await server.services.db.project.findUniqueOrThrow({ where: { uid: projectUid } });
  const files: string[] = [];
  for (const s of await server.services.db.snapshot.findMany({ where: { projectId: project.id } })) {
    const base = snapshotDirs(server.services.config.dataDir, project.id, s.id).base;
    if (await stat(base).catch(() => null)) files.push(base);
  }
  const temp = (await readdir(tmp)).filter((n) => n.startsWith("argus-upload-"));
  return { snapshots, files, temp };
}

describe("upload byte caps", () => {
  it("a zip over the cap is stopped while it streams: 413, the cap named, nothing left on disk", async () => {
    const projectUid = await newProject();
    const reply = await postStreaming(
      `${server.url}/api/projects/${projectUid}/upload?kind=zip`,
      { cookie: owner.client.cookie, "x-file-name": "big.zip" },
      256 * MB,
    );
    expect(reply.status).toBe(413);
    expect(reply.body.message).toBe(CAP_MESSAGE);
    // The server stopped reading at the cap: the client never got to produce most of the body.
    expect(reply.sentBytes).toBeLessThan(64 * MB);
    const left = await leftovers(projectUid);
    expect(left.snapshots).toEqual([expect.objectContaining({ status: "failed", message: CAP_MESSAGE })]);
    expect(left.files).toEqual([]);
    expect(left.temp).toEqual([]);
  });

  it("files over the cap (multipart) are stopped the same way", async () => {
    const projectUid = await newProject();
    const boundary = "argusBoundary42";
    const reply = await postStreaming(
      `${server.url}/api/projects/${projectUid}/upload?kind=files`,
      { cookie: owner.client.cookie, "content-type": `multipart/form-data; boundary=${boundary}` },
      256 * MB,
      multipartFrame(boundary, "file", "node_modules/huge.js"), // even an ignored file is counted
    );
    expect(reply.status).toBe(413);
    expect(reply.body.message).toBe(CAP_MESSAGE);
    expect(reply.sentBytes).toBeLessThan(64 * MB);
    const left = await leftovers(projectUid);
    expect(left.snapshots.map((s) => s.status)).toEqual(["failed"]);
    expect(left.files).toEqual([]);
  });

  it("a Content-Length over the cap is refused before a byte is read, and no snapshot is started", async () => {
    const projectUid = await newProject();
    const reply = await postDeclaredOnly(
      `${server.url}/api/projects/${projectUid}/upload?kind=zip`,
      { cookie: owner.client.cookie },
      100 * MB,
    );
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ message: CAP_MESSAGE });
    expect((await leftovers(projectUid)).snapshots).toEqual([]);
  });

  it("an upload under the cap still imports", async () => {
    const projectUid = await newProject();
    const zip = buildZip([{ name: "src/app.ts", data: "export const x = 1;\n" }]);
    const res = await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=zip`, {
      method: "POST",
      headers: { cookie: owner.client.cookie },
      body: new Uint8Array(zip),
    });
    expect(res.status).toBe(201);
  });
});
