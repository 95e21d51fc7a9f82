/**
 * The intake's hot path: a delivery for a connected installation waits only on its own insert (the
 * installation's lookup is reused), while the guarantees hold — the signature first, a replay refused,
 * every accepted delivery queued, and an installation connected after a 404 counts at once.
 */
import { describe, expect, it } from "vitest";
import type { Db } from "../../db/client.ts";
import { createLogger } from "../../logger.ts";
import { createGitHubIntake, type PullJob } from "./intake.ts";

function fakeDb() {
  const connected = new Map<string, { id: string; workspaceId: string }>();
  const deliveries = new Set<string>();
  let lookups = 0;
  const db = {
    forgeInstallation: {
      findUnique: async (q: { where: { forge_externalId: { externalId: string } } }) => {
        lookups++;
        return connected.get(q.where.forge_externalId.externalId) ?? null;
      },
    },
    forgeDelivery: {
      create: async (q: { data: { deliveryId: string } }) => {
        if (deliveries.has(q.data.deliveryId)) throw Object.assign(new Error("unique"), { code: "P2002" });
        deliveries.add(q.data.deliveryId);
        return q.data;
      },
    },
  };
  return { db: db as unknown as Db, connected, lookups: () => lookups };
}

const payload = JSON.stringify({
  action: "closed",
  number: 4,
  installation: { id: 77 },
  repository: { id: 5, full_name: "acme/shop" },
  pull_request: { head: { sha: "abc" } },
});

function setup() {
  const fake = fakeDb();
  const queued: PullJob[] = [];
  const receive = createGitHubIntake({
    db: fake.db,
    log: createLogger({ level: "silent", format: "json" }),
    configured: async () => true,
    verify: async (_payload, signature) => (signature === "sha256=good" ? { workspaceId: null } : null),
    enqueue: async (job) => void queued.push(job),
    enqueueComment: async () => undefined,
  });
  const deliver = (deliveryId: string, signature = "sha256=good") =>
    receive({ event: "pull_request", deliveryId, signature, body: Buffer.from(payload) });
  return { ...fake, queued, deliver };
}

describe("the GitHub intake's hot path", () => {
  it("looks a connected installation up once, and still queues every delivery and refuses replays", async () => {
    const t = setup();
    t.connected.set("77", { id: "inst-row", workspaceId: "ws" });
    for (let i = 0; i < 5; i++) expect((await t.deliver(`d${i}`)).status).toBe(202);
    expect(t.lookups()).toBe(1);
    expect(t.queued.map((j) => j.installationId)).toEqual(Array(5).fill("inst-row"));
    expect((await t.deliver("d3")).status).toBe(409);
    expect((await t.deliver("d9", "sha256=bad")).status).toBe(401);
    expect(t.queued).toHaveLength(5);
  });

  it("takes an installation connected after a 404 at once (a refusal is not remembered)", async () => {
    const t = setup();
    expect((await t.deliver("e1")).status).toBe(404);
    t.connected.set("77", { id: "inst-row", workspaceId: "ws" });
    expect((await t.deliver("e2")).status).toBe(202);
    expect(t.queued).toHaveLength(1);
  });
});
