/**
 * Co-editing across two web nodes (one PostgreSQL, one Redis): an editor on node A and one on node B
 * type into the same pipeline at once and converge; then node A dies (SIGKILL) with the draft unsaved,
 * and node B — and a newcomer on B — still have every edit (the database is the truth).
 *
 * Skipped unless DATABASE_URL names PostgreSQL and `redis-server` is installed (npm run test:scale).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Editor, openEditor, settled, textOf } from "../helpers/coedit.ts";
import { createTestConfig, testProvider, type TestConfig } from "../helpers/db.ts";
import { sayWhySkipped } from "../helpers/redis.ts";
import { openRoomClient } from "../helpers/room-client.ts";
import { inviteAndSignUp, signUp, type TestUser } from "../helpers/server.ts";
import { pipelineRoom } from "../../server/shared/rooms.ts";
import {
  hasRedisServer,
  startNode,
  startPrivateRedis,
  type NodeProcess,
  type PrivateRedis,
} from "./support/cluster.ts";

const skip =
  testProvider() !== "postgres"
    ? "DATABASE_URL is not a postgres:// URL: several nodes need one PostgreSQL database."
    : !hasRedisServer()
      ? "redis-server is not installed (apt-get install redis-server): the test runs a Redis of its own."
      : undefined;
sayWhySkipped("test/scale/coedit.test.ts", skip);

let t: TestConfig;
let redis: PrivateRedis;
const nodes: NodeProcess[] = [];
const editors: Editor[] = [];
let owner: TestUser;
let bea: TestUser;

beforeAll(async () => {
  if (skip) return;
  redis = await startPrivateRedis();
  t = await createTestConfig({ AUTH_SECRET: "scale-test-secret-0123456789abcdef" });
  const env = {
    ...t.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `argus-coedit-${Date.now().toString(36)}`,
    LOG_LEVEL: "warn",
  };
  nodes.push(...(await Promise.all([startNode("web", env), startNode("web", env)])));
  owner = await signUp(nodes[0]!.url, { name: "Olga Owner" });
  bea = await inviteAndSignUp(owner, "member", "Bea Member");
}, 240_000);

afterAll(async () => {
  for (const e of editors) e.client.close();
  for (const n of nodes) await n.kill("SIGTERM").catch(() => undefined);
  await redis?.stop();
  await t?.cleanup();
});

describe.skipIf(skip)("co-editing across two web nodes", () => {
  it("editors on A and B converge; after A dies, B and a newcomer on B have every edit", async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const created = await owner.client.ok<{ uid: string }>("mutate", "pipelines.create", {
      workspaceId: owner.workspaceId,
      name: `shared_${Date.now().toString(36)}`,
      source: "pipeline:\n  - retriever.search\n",
    });
    const room = pipelineRoom(created.uid);
    const onA = await openEditor(await openRoomClient(a.url, owner.client.cookie), room);
    const onB = await openEditor(await openRoomClient(b.url, bea.client.cookie), room);
    editors.push(onA, onB);
    for (let i = 0; i < 30; i++) {
      onA.doc.getText("yaml").insert(0, "a");
      onB.doc.getText("yaml").insert(onB.doc.getText("yaml").length, "b");
      await new Promise((r) => setTimeout(r, 20));
    }
    const text = await settled([onA, onB], "yaml", 20_000);
    expect(text).toBe(`${"a".repeat(30)}pipeline:\n  - retriever.search\n${"b".repeat(30)}`);

    await a.kill("SIGKILL");
    onB.doc.getText("yaml").insert(0, "#");
    expect(await settled([onB], "yaml", 20_000)).toBe(`#${text}`);
    const late = await openEditor(await openRoomClient(b.url, owner.client.cookie), room);
    editors.push(late);
    expect(textOf(late)).toBe(`#${text}`);
  }, 120_000);
});
