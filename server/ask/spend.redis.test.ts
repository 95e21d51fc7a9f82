/**
 * The daily chat budget shared by several processes through one Redis (REDIS_URL; skipped without
 * it): two ledgers stand for two worker processes. Together their answers cannot hold more than the
 * workspace's limit, each one's charges count for the other, an owner's new limits reach answers
 * running on the other, a new day starts from that day's spend, no limit means no Redis command, and
 * Redis going away refuses model requests with the reason while reads fall back to the database.
 *
 * The database is a stand-in holding the day's answers (only the day's sum is read from it: see
 * budget.ts); the model is the scripted wire server, through the real LLM client.
 */
import net from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sayWhySkipped, testRedis } from "../../test/helpers/redis.ts";
import { openRedis, type RedisLink } from "../cluster/redis.ts";
import type { Db } from "../db/client.ts";
import { Budget, modelInfo, userText, type BudgetHold, type ReserveRequest } from "../llm/index.ts";
import { clientFor, collect, scriptedServerForFile } from "../llm/test-support.ts";
import type { AskBudget } from "../shared/ask.ts";
import { createSharedSpendLedger, REDIS_DOWN } from "./spend-shared.ts";
import { createSpendLedger, type SpendLedger } from "./spend.ts";

const log = pino({ level: "silent" });
const { redis: server, skip } = await testRedis("spend");
sayWhySkipped("server/ask/spend.redis.test.ts", skip);
const llm = await scriptedServerForFile();

/** The database's answers: what the day's spend is read from, and how often it was read. */
const answers: { workspaceId: string; createdAt: Date; tokens: number; costUsd: number }[] = [];
let dbReads = 0;
const db = {
  askMessage: {
    aggregate: async (q: { where: { workspaceId: string; createdAt: { gte: Date } } }) => {
      dbReads++;
      const rows = answers.filter((r) => r.workspaceId === q.where.workspaceId && r.createdAt >= q.where.createdAt.gte);
      return {
        _sum: {
          inputTokens: rows.reduce((s, r) => s + r.tokens, 0),
          outputTokens: 0,
          costUsd: rows.reduce((s, r) => s + r.costUsd, 0),
        },
      };
    },
  },
} as unknown as Db;

let links: RedisLink[] = [];
const link = async () => {
  const l = await openRedis(server!.settings, log);
  links.push(l);
  await (l.fast.status === "ready" ? undefined : new Promise((r) => l.fast.once("ready", r)));
  return l;
};
let a: SpendLedger;
let b: SpendLedger;
beforeAll(async () => {
  if (!server) return;
  a = createSpendLedger(db, await link(), log);
  b = createSpendLedger(db, await link(), log);
});
afterAll(async () => {
  await Promise.all(links.map((l) => l.close()));
  links = [];
  await server?.cleanup();
});

let n = 0;
const workspace = (spentToday = 0, costToday = 0) => {
  const id = `ws-${++n}`;
  if (spentToday || costToday)
    answers.push({ workspaceId: id, createdAt: new Date(), tokens: spentToday, costUsd: costToday });
  return id;
};
const tokens = (maxTokens: number): AskBudget => ({ maxTokens, maxCostUsd: null });
const ask = (estimatedInput: number, maxTokens: number, pricing = undefined as ReserveRequest["pricing"]) => ({
  estimatedInput,
  maxTokens,
  pricing,
});
const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});
/** Figures settle in the background: wait until Redis says what is expected. */
const settled = async (l: SpendLedger, ws: string, limits: AskBudget, spent: number) =>
  expect.poll(async () => (await l.state(ws, limits)).spent.tokens).toBe(spent);

describe.skipIf(!server)("the daily chat budget across processes", () => {
  it("two processes' answers together hold no more than the workspace's limit", async () => {
    const ws = workspace(1000);
    const limits = tokens(10_000);
    const [ja, jb] = await Promise.all([a.join(ws, limits), b.join(ws, limits)]);
    expect(ja.state).toMatchObject({ spent: { tokens: 1000 }, remaining: { maxTokens: 9000 }, exhausted: false });
    // 24 requests at once, half on each process, each wanting a 500-token prompt and 1,000 out.
    const tries = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? ja : jb).budget!.reserve!(ask(500, 1000))),
    );
    const granted = tries.filter((t) => t.ok);
    const held = granted.reduce((s, t) => s + 500 + t.maxTokens, 0);
    expect(granted.length).toBeGreaterThan(1);
    expect(held).toBeLessThanOrEqual(9000);
    // Alone, each process would have held against all of the 9,000.
    expect(held).toBeGreaterThan(8000);
    const refused = tries.find((t) => !t.ok);
    expect(refused).toMatchObject({ ok: false, reason: expect.stringContaining("token budget exhausted") });
    for (const t of granted) (t as { hold: BudgetHold }).hold.release();
    await settled(b, ws, limits, 1000);
    expect((await a.state(ws, limits)).remaining.maxTokens).toBe(9000);
  });

  it("charges from both processes count on both, and spent refuses questions on either", async () => {
    const ws = workspace();
    const limits = tokens(5000);
    const [ja, jb] = await Promise.all([a.join(ws, limits), b.join(ws, limits)]);
    const ra = await ja.budget!.reserve!(ask(100, 2000));
    const rb = await jb.budget!.reserve!(ask(100, 2000));
    expect([ra.ok, rb.ok]).toEqual([true, true]);
    if (!ra.ok || !rb.ok) return;
    ra.hold!.charge(usage(1500, 500), undefined);
    rb.hold!.charge(usage(1000, 200), undefined);
    await settled(a, ws, limits, 3200);
    expect((await b.state(ws, limits)).spent.tokens).toBe(3200);
    // What is left is what both left: 1,800, so a 100-token prompt gets 1,700 out.
    expect(await jb.budget!.reserve!(ask(100, 4000))).toMatchObject({ ok: true, maxTokens: 1700 });
    // The 1,800 is held by b's request: nothing for a's, nor for an answer starting now on a.
    expect(await ja.budget!.reserve!(ask(100, 1000))).toMatchObject({ ok: false });
    expect(await (await a.join(ws, limits)).budget!.reserve!(ask(0, 1))).toMatchObject({ ok: false });
  });

  it("refuseIfSpent and state see the other process's charges", async () => {
    const ws = workspace(100);
    const limits = tokens(1000);
    const ja = await a.join(ws, limits);
    const r = await ja.budget!.reserve!(ask(100, 900));
    expect(r).toMatchObject({ ok: true, maxTokens: 800 });
    await b.refuseIfSpent(ws, limits); // held is not spent
    if (r.ok) r.hold!.charge(usage(600, 300), undefined);
    await settled(b, ws, limits, 1000);
    const refused = await b.refuseIfSpent(ws, limits).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/daily chat budget is spent \(1,000 of 1,000 tokens/);
    expect((await b.join(ws, limits)).state).toMatchObject({ exhausted: true });
  });

  it("an owner's new limits reach answers running on the other process", async () => {
    const ws = workspace();
    const ja = await a.join(ws, tokens(10_000));
    await b.limitsChanged(ws, tokens(1000));
    expect(await ja.budget!.reserve!(ask(200, 5000))).toMatchObject({ ok: true, maxTokens: 800 });
    expect(ja.budget!.limits.maxTokens).toBe(1000);
    await b.limitsChanged(ws, { maxTokens: null, maxCostUsd: null });
    expect(await ja.budget!.reserve!(ask(200, 5000))).toMatchObject({ ok: true, maxTokens: 5000 });
  });

  it("dollar limits are held and charged across processes too", async () => {
    const ws = workspace(0, 0.5);
    const limits: AskBudget = { maxTokens: null, maxCostUsd: 1 };
    const pricing = modelInfo("anthropic", "claude-sonnet-5-5").pricing!; // $2 in, $10 out per million
    const [ja, jb] = await Promise.all([a.join(ws, limits), b.join(ws, limits)]);
    const first = await ja.budget!.reserve!(ask(10_000, 100_000, pricing));
    // $0.50 left: $0.02 of prompt leaves 48,000 tokens out at $10 per million.
    expect(first).toMatchObject({ ok: true, maxTokens: 48_000 });
    expect(await jb.budget!.reserve!(ask(10_000, 100_000, pricing))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("cost budget exhausted"),
    });
    if (first.ok) first.hold!.charge(usage(10_000, 10_000), 0.12);
    await expect.poll(async () => (await b.state(ws, limits)).spent.costUsd).toBeCloseTo(0.62, 9);
    expect(await jb.budget!.reserve!(ask(10_000, 100_000, pricing))).toMatchObject({ ok: true, maxTokens: 36_000 });
  });

  it("a new day starts from that day's spend, under a key of its own", async () => {
    const ws = workspace(4000);
    const limits = tokens(5000);
    const today = new Date();
    const tomorrow = new Date(today.getTime() + 86_400_000);
    const ja = await a.join(ws, limits, today);
    expect(ja.state?.remaining.maxTokens).toBe(1000);
    const jt = await b.join(ws, limits, tomorrow);
    expect(jt.state).toMatchObject({ spent: { tokens: 0 }, remaining: { maxTokens: 5000 }, exhausted: false });
    expect(await jt.budget!.reserve!(ask(0, 4000))).toMatchObject({ ok: true, maxTokens: 4000 });
    expect((await a.state(ws, limits, today)).spent.tokens).toBe(4000);
    const keys = await server!.client.keys(`${server!.settings.prefix}:ask-budget:${ws}:*`);
    expect(keys.sort()).toEqual(
      [today, tomorrow].map((d) => `${server!.settings.prefix}:ask-budget:${ws}:${d.toISOString().slice(0, 10)}`),
    );
  });

  it("the day's figures are read from the database once, then live in Redis; lost figures are read again", async () => {
    const ws = workspace(300);
    const limits = tokens(1000);
    const before = dbReads;
    const ja = await a.join(ws, limits);
    await b.join(ws, limits);
    await a.join(ws, limits);
    expect(dbReads - before).toBe(1);
    // Redis restarted without persistence: the next request creates the day's figures again.
    await server!.client.del(`${server!.settings.prefix}:ask-budget:${ws}:${new Date().toISOString().slice(0, 10)}`);
    answers.push({ workspaceId: ws, createdAt: new Date(), tokens: 200, costUsd: 0 });
    expect(await ja.budget!.reserve!(ask(100, 1000))).toMatchObject({ ok: true, maxTokens: 400 });
    expect(dbReads - before).toBe(2);
  });

  it("with no limit there is no Redis command (and no query)", async () => {
    const counted = await link();
    let commands = 0;
    const count = (r: RedisLink["client"]) => {
      const orig = r.sendCommand.bind(r);
      r.sendCommand = ((...args: Parameters<typeof orig>) => {
        commands++;
        return orig(...args);
      }) as typeof r.sendCommand;
    };
    count(counted.client);
    count(counted.fast);
    const ledger = createSpendLedger(db, counted, log);
    const ws = workspace(123);
    const none: AskBudget = { maxTokens: null, maxCostUsd: null };
    const before = dbReads;
    await ledger.refuseIfSpent(ws, none);
    const joined = await ledger.join(ws, none);
    expect(joined).toMatchObject({ budget: undefined, state: undefined });
    joined.leave();
    expect(commands).toBe(0);
    expect(dbReads).toBe(before);
    // Counting works: a limit does reach Redis.
    await ledger.join(ws, tokens(1000));
    expect(commands).toBeGreaterThan(0);
  });

  it("Redis away mid-run: a model request is refused with the reason, reads fall back to the database, nothing throws", async () => {
    const gone = await link();
    const ledger = createSpendLedger(db, gone, log);
    const ws = workspace(250);
    const limits = tokens(1000);
    const joined = await ledger.join(ws, limits);
    expect(await joined.budget!.reserve!(ask(10, 100))).toMatchObject({ ok: true });
    await gone.close();
    const refused = await joined.budget!.reserve!(ask(10, 100));
    expect(refused).toEqual({ ok: false, reason: REDIS_DOWN, kind: "bad_request" });
    expect((await ledger.state(ws, limits)).spent.tokens).toBe(250); // the database's figure
    await ledger.refuseIfSpent(ws, limits);
    const late = await ledger.join(ws, limits);
    expect(late.state).toMatchObject({ spent: { tokens: 250 }, exhausted: false });
    expect(await late.budget!.reserve!(ask(10, 100))).toMatchObject({ ok: false, kind: "bad_request" });
    await ledger.limitsChanged(ws, tokens(2000));
  });

  it("Redis unreachable (connection refused, commands waiting): refused after the wait, and the late hold is undone", async () => {
    // A TCP hop to Redis that can be cut and restored, like a Redis restart seen from a worker.
    const target = new URL(server!.settings.url);
    const sockets = new Set<net.Socket>();
    const hop = net.createServer((c) => {
      const up = net.connect(Number(target.port || 6379), target.hostname);
      for (const s of [c, up]) {
        sockets.add(s);
        s.on("error", () => undefined).on("close", () => sockets.delete(s));
      }
      c.pipe(up).pipe(c);
    });
    await new Promise<void>((r) => hop.listen(0, "127.0.0.1", r));
    const port = (hop.address() as net.AddressInfo).port;
    const cut = openRedis({ ...server!.settings, url: `redis://127.0.0.1:${port}` }, log);
    const viaHop = await cut;
    links.push(viaHop);
    const ledger = createSharedSpendLedger(db, viaHop, { log, waitMs: 300 });
    const ws = workspace(100);
    const limits = tokens(1000);
    const joined = await ledger.join(ws, limits);
    const key = `${server!.settings.prefix}:ask-budget:${ws}:${new Date().toISOString().slice(0, 10)}`;

    await new Promise<void>((r) => hop.close(() => r()) && sockets.forEach((s) => s.destroy()));
    const started = Date.now();
    expect(await joined.budget!.reserve!(ask(10, 500))).toEqual({ ok: false, reason: REDIS_DOWN, kind: "bad_request" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await ledger.state(ws, limits)).spent.tokens).toBe(100); // the database's figure meanwhile

    // Redis is back: the hold that waited reaches it, and so does its release right behind it.
    await new Promise<void>((r) => hop.listen(port, "127.0.0.1", r));
    await expect.poll(() => viaHop.client.status, { timeout: 10_000 }).toBe("ready");
    await expect.poll(async () => server!.client.hgetall(key), { timeout: 10_000 }).toMatchObject({ tokens: "100" });
    await expect
      .poll(async () => Object.keys(await server!.client.hgetall(key)).filter((f) => f.startsWith("h:")))
      .toEqual([]);
    expect(await joined.budget!.reserve!(ask(10, 500))).toMatchObject({ ok: true, maxTokens: 500 });
    hop.close();
    sockets.forEach((s) => s.destroy());
  });

  it("through the LLM client: two processes' streams at once stay within the limit, max_tokens cut to what is left", async () => {
    llm.setScript([{ text: "ok", usage: { input: 300, output: 700 }, delayMs: 150 }]);
    const ws = workspace();
    const limits = tokens(4000);
    const [ja, jb] = await Promise.all([a.join(ws, limits), b.join(ws, limits)]);
    const client = clientFor(llm, "anthropic", { maxRetries: 0 });
    const streams = Array.from({ length: 6 }, (_, i) =>
      collect(
        client.stream({ messages: [userText("x".repeat(400))], maxTokens: 1500, budget: (i % 2 ? ja : jb).budget! }),
      ),
    );
    const done = await Promise.all(streams);
    const sent = llm.requests.map((r) => Number(r.body.max_tokens));
    // Each request held its ~100-token prompt and its max_tokens: together no more than 4,000.
    expect(sent.length).toBeGreaterThan(1);
    expect(Math.min(...sent)).toBeLessThan(1500); // the last one that fitted was cut to what was left
    expect(sent.reduce((s, m) => s + m + 100, 0)).toBeLessThanOrEqual(4000);
    expect(done.filter((d) => d.stop.reason === "error").every((d) => d.stop.error?.kind === "budget_exceeded")).toBe(
      true,
    );
    // Every request that ran was charged (1,000 each), seen by both.
    await settled(a, ws, limits, sent.length * 1000);
    expect(ja.budget).toBeInstanceOf(Budget);
  });
});
