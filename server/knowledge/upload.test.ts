/**
 * Knowledge-base uploads are counted while they stream and stopped at KNOWLEDGE_MAX_UPLOAD_MB (1 MB
 * here): 413 naming the cap and its variable, answered while most of the body was never sent, and
 * no partial file left in the base's incoming/ folder.
 */
import { readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { multipartFrame, postDeclaredOnly, postStreaming } from "../../test/helpers/streaming-upload.ts";
import { baseDirs } from "./storage.ts";

const MB = 1024 * 1024;
const CAP_MESSAGE =
  "This upload is larger than 1 MB, the limit for one upload (KNOWLEDGE_MAX_UPLOAD_MB). Upload the documents in several batches, or ask the operator to raise the limit.";

let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer(await createTestConfig({ KNOWLEDGE_MAX_UPLOAD_MB: "1", KNOWLEDGE_MAX_FILE_MB: "2" }));
  owner = await signUp(server.url, { name: "Owner" });
});
afterAll(async () => {
  await server?.stop();
});

async function newBase(): Promise<{ uid: string; incoming: string }> {
  const base = await owner.client.ok<{ uid: string }>("mutate", "knowledge.create", {
    workspaceId: owner.workspaceId,
    name: `kb-${crypto.randomUUID().slice(0, 8)}`,
  });
  const row = await server.services.db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
  return { uid: base.uid, incoming: baseDirs(server.services.config.dataDir, row.id).incoming };
}

describe("knowledge upload byte cap", () => {
  it("an upload over the cap is stopped while it streams: 413, the cap named, no partial file", async () => {
    const base = await newBase();
    const boundary = "argusBoundary42";
    const reply = await postStreaming(
      `${server.url}/api/knowledge/${base.uid}/upload`,
      { cookie: owner.client.cookie, "content-type": `multipart/form-data; boundary=${boundary}` },
      256 * MB,
      multipartFrame(boundary, "files", "huge.txt"),
    );
    expect(reply.status).toBe(413);
    expect(reply.body.message).toBe(CAP_MESSAGE);
    expect(reply.sentBytes).toBeLessThan(64 * MB);
    expect(await readdir(base.incoming).catch(() => [])).toEqual([]);
    const docs = await owner.client.ok<unknown[]>("query", "knowledge.documents", { uid: base.uid });
    expect(docs).toEqual([]);
  });

  it("a Content-Length over the cap is refused before a byte is read", async () => {
    const base = await newBase();
    const reply = await postDeclaredOnly(
      `${server.url}/api/knowledge/${base.uid}/upload`,
      { cookie: owner.client.cookie, "content-type": "multipart/form-data; boundary=x" },
      100 * MB,
    );
    expect(reply.status).toBe(413);
    expect(reply.body.message).toBe(CAP_MESSAGE);
    expect(await readdir(base.incoming).catch(() => [])).toEqual([]);
  });

  it("an upload under the cap is accepted", async () => {
    const base = await newBase();
    const form = new FormData();
    form.append("files", new Blob(["Quasars are bright."]), "notes.txt");
    const res = await fetch(`${server.url}/api/knowledge/${base.uid}/upload`, {
      method: "POST",
      headers: { cookie: owner.client.cookie },
      body: form,
    });
    expect(res.status).toBe(201);
  });
});
