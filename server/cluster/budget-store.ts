/**
 * Spending figures shared by every node: one Redis hash per budget and day (the caller names the key,
 * e.g. `<prefix>:ask-budget:<workspace>:<YYYY-MM-DD>`) holding what was spent (`tokens`, `usd`), the
 * limits (`maxTokens`, `maxUsd`; empty: none) and one field per running request's hold
 * (`h:<id>` = "<tokens> <usd> <deadline ms>"). Each operation is one Lua script, so a check and its
 * hold, or a charge and the release of its hold, are one atomic step even when requests of several
 * processes reach Redis at once.
 *
 * - `init` creates the day's figures from what the caller read elsewhere (the database) unless they
 *   exist — the first caller of the day wins, later ones only set the limits — and expires the key
 *   at the time given (after the day).
 * - `hold` takes a hold only if spent + held + it stays within every limit, else answers `full` with
 *   the figures (the caller fits its request to them and tries again); `missing` when the day's
 *   figures are gone (not created yet, or Redis lost them): the caller creates them again.
 * - `settle` replaces a hold by the request's charge; `release` drops a hold; `renew` moves the
 *   deadline of holds still running.
 *
 * A hold lives for a lease (`leaseMs`) that its process renews while the request runs: the holds of
 * a process that died are dropped by the next script that reads the figures once their deadline
 * passed (Redis's own clock), so they never block the budget for good.
 *
 * Connections: everything that changes figures goes through the main connection (`client`), in the
 * order it was sent — a release is never overtaken by the next request's hold — and a charge sent
 * while Redis is away is sent when it is back. The caller puts a timeout on what it waits for
 * (server/ask/spend-shared.ts). `read` uses the `fast` connection (fails at once while Redis is away).
 */
import type { Redis, RedisLink } from "./redis.ts";

export interface SharedFigures {
  tokens: number;
  usd: number;
  heldTokens: number;
  heldUsd: number;
  /** null: no limit of that kind. */
  maxTokens: number | null;
  maxUsd: number | null;
}

export interface SharedLimits {
  maxTokens: number | null;
  maxUsd: number | null;
}

export type HoldResult = { status: "ok" | "full"; figures: SharedFigures } | { status: "missing" };

// The figures of KEYS[1] now; holds past their deadline are dropped on the way.
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function figures(key)
  local now = now_ms()
  local all = redis.call('HGETALL', key)
  local f = { tokens = 0, usd = 0, heldTokens = 0, heldUsd = 0, maxTokens = '', maxUsd = '' }
  for i = 1, #all, 2 do
    local name, value = all[i], all[i + 1]
    if string.sub(name, 1, 2) == 'h:' then
      local t, u, deadline = string.match(value, '^(%S+) (%S+) (%S+)$')
      if deadline == nil or tonumber(deadline) <= now then
        redis.call('HDEL', key, name)
      else
        f.heldTokens = f.heldTokens + tonumber(t)
        f.heldUsd = f.heldUsd + tonumber(u)
      end
    elseif name == 'tokens' then f.tokens = tonumber(value)
    elseif name == 'usd' then f.usd = tonumber(value)
    elseif name == 'maxTokens' then f.maxTokens = value
    elseif name == 'maxUsd' then f.maxUsd = value
    end
  end
  return f
end
local function num(x) return string.format('%.17g', x) end
local function reply(status, f)
  return { status, num(f.tokens), num(f.usd), num(f.heldTokens), num(f.heldUsd), f.maxTokens, f.maxUsd }
end
local function missing(key) return redis.call('HEXISTS', key, 'init') == 0 end
`;

// ARGV: spent tokens, spent usd, maxTokens, maxUsd ('' none), expire at (unix ms).
const INIT = `${PRELUDE}
if missing(KEYS[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'init', '1', 'tokens', ARGV[1], 'usd', ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[5])
end
redis.call('HSET', KEYS[1], 'maxTokens', ARGV[3], 'maxUsd', ARGV[4])
return reply('ok', figures(KEYS[1]))
`;

// ARGV: maxTokens, maxUsd ('' none). Only on figures that exist.
const LIMITS = `${PRELUDE}
if missing(KEYS[1]) then return { 'missing' } end
redis.call('HSET', KEYS[1], 'maxTokens', ARGV[1], 'maxUsd', ARGV[2])
return reply('ok', figures(KEYS[1]))
`;

const READ = `${PRELUDE}
if missing(KEYS[1]) then return { 'missing' } end
return reply('ok', figures(KEYS[1]))
`;

// ARGV: hold id, tokens, usd, lease (ms). A cent's billionth of slack: the caller's float sums may
// differ from these in the last bits.
const HOLD = `${PRELUDE}
if missing(KEYS[1]) then return { 'missing' } end
local f = figures(KEYS[1])
local t, u = tonumber(ARGV[2]), tonumber(ARGV[3])
if (f.maxTokens ~= '' and f.tokens + f.heldTokens + t > tonumber(f.maxTokens))
  or (f.maxUsd ~= '' and f.usd + f.heldUsd + u > tonumber(f.maxUsd) + 1e-9) then
  return reply('full', f)
end
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. num(now_ms() + tonumber(ARGV[4])))
f.heldTokens = f.heldTokens + t
f.heldUsd = f.heldUsd + u
return reply('ok', f)
`;

// ARGV: hold id, tokens, usd. The charge counts even when the hold's lease ran out meanwhile.
const SETTLE = `${PRELUDE}
if missing(KEYS[1]) then return { 'missing' } end
redis.call('HDEL', KEYS[1], 'h:' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'tokens', ARGV[2])
redis.call('HINCRBYFLOAT', KEYS[1], 'usd', ARGV[3])
return reply('ok', figures(KEYS[1]))
`;

// ARGV: hold id.
const RELEASE = `${PRELUDE}
if missing(KEYS[1]) then return { 'missing' } end
redis.call('HDEL', KEYS[1], 'h:' .. ARGV[1])
return reply('ok', figures(KEYS[1]))
`;

// ARGV: lease (ms), hold ids… Moves the deadline of the holds that are still there; returns how many.
const RENEW = `${PRELUDE}
local deadline = num(now_ms() + tonumber(ARGV[1]))
local n = 0
for i = 2, #ARGV do
  local field = 'h:' .. ARGV[i]
  local v = redis.call('HGET', KEYS[1], field)
  if v then
    local t, u = string.match(v, '^(%S+) (%S+) ')
    if t then
      redis.call('HSET', KEYS[1], field, t .. ' ' .. u .. ' ' .. deadline)
      n = n + 1
    end
  end
end
return n
`;

const limit = (x: number | null) => (x === null ? "" : String(x));
const parseLimit = (x: string) => (x === "" ? null : Number(x));

function parse(reply: unknown): SharedFigures | undefined {
  const r = reply as string[];
  if (r[0] === "missing") return undefined;
  return {
    tokens: Number(r[1]),
    usd: Number(r[2]),
    heldTokens: Number(r[3]),
    heldUsd: Number(r[4]),
    maxTokens: parseLimit(r[5] ?? ""),
    maxUsd: parseLimit(r[6] ?? ""),
  };
}

export interface SharedBudgetStore {
  /** The key of one budget's day: `<prefix>:<parts…>`. */
  key(...parts: string[]): string;
  init(
    key: string,
    spent: { tokens: number; usd: number },
    limits: SharedLimits,
    expireAtMs: number,
  ): Promise<SharedFigures>;
  /** Sets the limits of figures that exist (undefined: none yet). */
  setLimits(key: string, limits: SharedLimits): Promise<SharedFigures | undefined>;
  /** The figures, on the connection that fails at once while Redis is away (undefined: none yet). */
  read(key: string): Promise<SharedFigures | undefined>;
  /** The figures, in order with this process's holds and charges. */
  figures(key: string): Promise<SharedFigures | undefined>;
  hold(key: string, id: string, tokens: number, usd: number, leaseMs: number): Promise<HoldResult>;
  settle(key: string, id: string, tokens: number, usd: number): Promise<SharedFigures | undefined>;
  release(key: string, id: string): Promise<SharedFigures | undefined>;
  renew(key: string, ids: string[], leaseMs: number): Promise<number>;
}

export function redisBudgetStore(redis: RedisLink): SharedBudgetStore {
  const run = (conn: Redis, script: string, key: string, ...args: (string | number)[]) =>
    conn.eval(script, 1, key, ...args.map(String));
  const main = redis.client;
  return {
    key: (...parts) => redis.key(...parts),
    async init(key, spent, limits, expireAtMs) {
      const reply = await run(
        main,
        INIT,
        key,
        Math.round(spent.tokens),
        spent.usd,
        limit(limits.maxTokens),
        limit(limits.maxUsd),
        Math.ceil(expireAtMs),
      );
      return parse(reply)!;
    },
    async setLimits(key, limits) {
      return parse(await run(main, LIMITS, key, limit(limits.maxTokens), limit(limits.maxUsd)));
    },
    async read(key) {
      return parse(await run(redis.fast, READ, key));
    },
    async figures(key) {
      return parse(await run(main, READ, key));
    },
    async hold(key, id, tokens, usd, leaseMs) {
      const reply = (await run(main, HOLD, key, id, Math.ceil(tokens), usd, Math.ceil(leaseMs))) as string[];
      const figures = parse(reply);
      return figures ? { status: reply[0] as "ok" | "full", figures } : { status: "missing" };
    },
    async settle(key, id, tokens, usd) {
      return parse(await run(main, SETTLE, key, id, Math.round(tokens), usd));
    },
    async release(key, id) {
      return parse(await run(main, RELEASE, key, id));
    },
    async renew(key, ids, leaseMs) {
      if (!ids.length) return 0;
      return Number(await run(main, RENEW, key, Math.ceil(leaseMs), ...ids));
    },
  };
}
