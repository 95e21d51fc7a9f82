/**
 * Web pipeline runs on a shared queue (REDIS_URL; skipped without it): a run started from the app is
 * a BullMQ job, runs to the end like in one process, and its job data holds the run's API keys only
 * sealed. (A run taken over from a dead worker: run-job.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../../test/helpers/db.ts";
import { sayWhySkipped, testRedis } from "../../../test/helpers/redis.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../../test/helpers/server.ts";
import { runRoom } from "../../shared/rooms.ts";

const { redis, skip } = await testRedis("pipeline-runs");
sayWhySkipped("server/pipelines/workspace/run-job.redis.test.ts", skip);

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

async function finished(uid: string) {
  for (let i = 0; i < 300; i++) {
    const run = await owner.client.ok<{ status: string; error: string | null; steps: number | null }>(
      "query",
      "pipelines.run",
      { uid },
    );
    if (run.status !== "running") return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${uid} did not finish`);
}

describe.skipIf(!redis)("web pipeline runs on a shared queue", () => {
  it("a run is a job: it completes, and its API key travels sealed", async () => {
    const { uid } = await owner.client.ok<{ uid: string }>("mutate", "pipelines.fork", {
      workspaceId: owner.workspaceId,
      key: "bm25_search",
    });
    const p = await owner.client.ok<{ source: string; parameters: Record<string, Record<string, unknown>> }>(
      "query",
      "pipelines.get",
      { uid },
    );
    const parameters = structuredClone(p.parameters);
    (parameters.retriever!.backend_configs as { openai: { api_key: string } }).openai.api_key = "sk-canary-456";
    await owner.client.ok("mutate", "pipelines.save", { uid, source: p.source, parameters });

    const started = await owner.client.ok<{ uid: string }>("mutate", "pipelines.startRun", {
      target: { uid },
      dataset: { kind: "sample" },
    });
    expect(await finished(started.uid)).toMatchObject({ status: "completed", error: null, steps: 4 });
    const types = (await server.services.events.history(runRoom(started.uid))).map((e) => e.type);
    expect(types.at(-1)).toBe("final");

    const keys = (await redis!.client.keys(`${redis!.settings.prefix}:bull:pipeline.run:*`)).filter((k) =>
      /:\d+$/.test(k),
    );
    expect(keys).toHaveLength(1);
    const data = (await redis!.client.hget(keys[0]!, "data"))!;
    expect(JSON.parse(data)).toMatchObject({ uid: started.uid, sealedOverrides: expect.any(String) });
    expect(data).not.toContain("sk-canary-456");
  });
});
