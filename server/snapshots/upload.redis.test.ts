/**
 * One `all` node with REDIS_URL (REDIS_URL; skipped without it): imports are BullMQ jobs. An upload's
 * file list stays out of Redis (the worker reads it from the snapshot folder), and the import is ready
 * as in the embedded default; the health check counts the queue.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";

const { redis, skip } = await testRedis("upload");
sayWhySkipped("server/snapshots/upload.redis.test.ts", skip);

let server: TestServer;
let owner: TestUser;
beforeAll(async () => {
  if (!redis) return;
  server = await startTestServer(
    await createTestConfig({ REDIS_URL: redis.settings.url, REDIS_PREFIX: redis.settings.prefix }),
  );
  owner = await signUp(server.url, { name: "Owner" });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await redis?.cleanup();
});

describe.skipIf(!redis)("imports on a shared queue", () => {
  it("an upload is imported by a BullMQ job whose data carries no file list", async () => {
    expect(server.services.queue.kind).toBe("bullmq");
    const projectUid = crypto.randomUUID();
    await owner.client.ok("mutate", "projects.create", { workspaceId: owner.workspaceId, uid: projectUid, name: "p" });
    const form = new FormData();
    form.append("file", new Blob(["export const x = 1;\n"]), "src/x.ts");
    form.append("file", new Blob(["print('hi')\n"]), "main.py");
    const res = await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=files`, {
      method: "POST",
      headers: { cookie: owner.client.cookie },
      body: form,
    });
    expect(res.status).toBe(201);
    const { snapshotUid } = (await res.json()) as { snapshotUid: string };
    await server.services.queue.idle();
    const snap = await owner.client.ok<{ status: string; summary: { files: number } }>("query", "snapshots.get", {
      snapshotUid,
    });
    expect(snap).toMatchObject({ status: "ready", summary: { files: 2 } });

    const prefix = `${redis!.settings.prefix}:bull:snapshot.ingest:`;
    const keys = (await redis!.client.keys(`${prefix}*`)).filter((k) => /:\d+$/.test(k));
    expect(keys).toHaveLength(1);
    const data = JSON.parse((await redis!.client.hget(keys[0]!, "data"))!) as { source: Record<string, unknown> };
    expect(data.source).toEqual({ kind: "uploaded" });

    const health = await (await fetch(`${server.url}/api/health`)).json();
    expect(health).toMatchObject({ status: "ok", role: "all", redis: "ok", queue: { kind: "bullmq", waiting: 0 } });
  });
});
