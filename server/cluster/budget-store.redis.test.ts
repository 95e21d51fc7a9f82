/**
 * The shared spending figures' scripts against a real Redis (REDIS_URL; skipped without it): the
 * first init of a day wins, a hold is taken only within every limit, and holds taken at once through
 * two connections (two nodes) never add up past it; a charge replaces its hold; holds of a process
 * that stopped renewing them are dropped at their deadline.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { redisBudgetStore, type SharedBudgetStore } from "./budget-store.ts";
import { openRedis, type RedisLink } from "./redis.ts";

const log = pino({ level: "silent" });
const { redis: server, skip } = await testRedis("budget-store");
sayWhySkipped("server/cluster/budget-store.redis.test.ts", skip);

let a: RedisLink;
let b: RedisLink;
let sa: SharedBudgetStore;
let sb: SharedBudgetStore;
beforeAll(async () => {
  if (!server) return;
  [a, b] = await Promise.all([openRedis(server.settings, log), openRedis(server.settings, log)]);
  [sa, sb] = [redisBudgetStore(a), redisBudgetStore(b)];
  // `read` uses the connection that refuses at once until it is up.
  await Promise.all(
    [a, b].map((l) => (l.fast.status === "ready" ? undefined : new Promise((r) => l.fast.once("ready", r)))),
  );
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await server?.cleanup();
});

const inAnHour = () => Date.now() + 3_600_000;
const limits = (maxTokens: number | null, maxUsd: number | null = null) => ({ maxTokens, maxUsd });
let n = 0;
const fresh = () => sa.key("budget-test", String(++n));

describe.skipIf(!server)("shared budget figures", () => {
  it("init: the first one of the day sets the spend, later ones only the limits; the key expires", async () => {
    const key = fresh();
    expect(await sa.read(key)).toBeUndefined();
    expect(await sa.hold(key, "h", 1, 0, 60_000)).toEqual({ status: "missing" });
    const expireAt = inAnHour();
    expect(await sa.init(key, { tokens: 100, usd: 0.25 }, limits(1000, 2), expireAt)).toEqual({
      tokens: 100,
      usd: 0.25,
      heldTokens: 0,
      heldUsd: 0,
      maxTokens: 1000,
      maxUsd: 2,
    });
    // Another node read the database a moment later (and saw more): the figures stay the first ones.
    expect(await sb.init(key, { tokens: 400, usd: 1 }, limits(2000, null), expireAt)).toMatchObject({
      tokens: 100,
      usd: 0.25,
      maxTokens: 2000,
      maxUsd: null,
    });
    const ttl = await server!.client.pttl(key);
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    expect(await sb.setLimits(fresh(), limits(5, 5))).toBeUndefined(); // limits alone create nothing
  });

  it("hold: only within every limit; full answers with the figures; settle turns a hold into its charge", async () => {
    const key = fresh();
    await sa.init(key, { tokens: 100, usd: 0 }, limits(1000, 1), inAnHour());
    expect(await sa.hold(key, "one", 600, 0.5, 60_000)).toMatchObject({
      status: "ok",
      figures: { tokens: 100, heldTokens: 600, heldUsd: 0.5 },
    });
    // 100 spent + 600 held + 301 > 1000.
    expect(await sb.hold(key, "two", 301, 0.1, 60_000)).toMatchObject({
      status: "full",
      figures: { tokens: 100, heldTokens: 600 },
    });
    // Within tokens, past dollars (0.5 held + 0.6 > 1).
    expect((await sb.hold(key, "two", 300, 0.6, 60_000)).status).toBe("full");
    expect((await sb.hold(key, "two", 300, 0.5, 60_000)).status).toBe("ok");
    // The first request used less than it held: its charge frees the rest.
    expect(await sa.settle(key, "one", 250, 0.125)).toMatchObject({
      tokens: 350,
      usd: 0.125,
      heldTokens: 300,
      heldUsd: 0.5,
    });
    expect(await sb.release(key, "two")).toMatchObject({ tokens: 350, heldTokens: 0, heldUsd: 0 });
    // Limits changed to none: anything fits.
    await sb.setLimits(key, limits(null, null));
    expect((await sa.hold(key, "big", 1e9, 1e6, 60_000)).status).toBe("ok");
  });

  it("holds taken at once by two nodes never add up past the limit", async () => {
    const key = fresh();
    await sa.init(key, { tokens: 0, usd: 0 }, limits(10_000, 1), inAnHour());
    const tries = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? sa : sb).hold(key, `h${i}`, 700, 0.01 + (i % 7) * 0.003, 60_000),
    );
    const results = await Promise.all(tries);
    const ok = results.filter((r) => r.status === "ok").length;
    expect(ok).toBe(14); // 14 × 700 = 9,800; a 15th would pass 10,000
    const f = (await sa.read(key))!;
    expect(f.heldTokens).toBe(9800);
    expect(f.heldUsd).toBeLessThanOrEqual(1);
  });

  it("a hold not renewed is dropped at its deadline; renewed ones stay; a charge counts even after", async () => {
    const key = fresh();
    await sa.init(key, { tokens: 0, usd: 0 }, limits(1000), inAnHour());
    await sa.hold(key, "dead", 500, 0, 150);
    await sb.hold(key, "alive", 400, 0, 150);
    await new Promise((r) => setTimeout(r, 80));
    expect(await sb.renew(key, ["alive", "gone"], 60_000)).toBe(1);
    await new Promise((r) => setTimeout(r, 120));
    expect(await sa.read(key)).toMatchObject({ heldTokens: 400 });
    expect(await server!.client.hexists(key, "h:dead")).toBe(0);
    // The dead process's request still reports (it had not died after all): its usage counts.
    expect(await sa.settle(key, "dead", 120, 0)).toMatchObject({ tokens: 120, heldTokens: 400 });
  });

  it("keeps dollars exact enough for tiny and repeated charges", async () => {
    const key = fresh();
    await sa.init(key, { tokens: 0, usd: 0.1 }, limits(null, 5), inAnHour());
    for (let i = 0; i < 20; i++) await (i % 2 ? sa : sb).settle(key, `c${i}`, 10, 0.000_015);
    const f = (await sb.read(key))!;
    expect(f.tokens).toBe(200);
    expect(f.usd).toBeCloseTo(0.1003, 10);
    expect(await sa.hold(key, "x", 1, 0.000_000_1, 60_000)).toMatchObject({ status: "ok" });
  });
});
