/**
 * The daily chat budget shared by every process (REDIS_URL): the same ledger as spend.ts, with the
 * day's figures in Redis (server/cluster/budget-store.ts, one hash per workspace and UTC day) instead
 * of in this process. The first answer of the day on any node creates them from the database's day
 * spend; from then on every model request of every node checks and holds in one atomic step there
 * (`Budget.reserve`), and its charge replaces its hold in another, so answers running at once on
 * several workers cannot together pass the limit. The limits are kept with the figures: set by each
 * answer as it starts (read with it from the database) and by an owner's change, so answers already
 * running on other nodes spend within new limits too.
 *
 * Each answer's `Budget` (spend-shared-budget.ts) is a mirror of the shared figures as of the last
 * script's reply (what the agent loop's "nearly spent" reads); the decision is always Redis's.
 *
 * Redis unavailable mid-run — fail safe by refusing: a model request whose hold Redis does not
 * confirm within HOLD_WAIT_MS is not sent, and the answer fails with a reason that says so
 * (REDIS_DOWN); a charge sent meanwhile reaches Redis when it is back (main connection). No fallback
 * to this process's own view: several workers each holding against the database's remainder is the
 * overspending this module exists to prevent. What only reads — `state`, `refuseIfSpent` — falls back
 * to the database's figures (usage is written there as it streams), so pages and questions still work.
 *
 * With no limit set nothing of this runs: no Redis command, no query (as in spend.ts).
 */
import type { Logger } from "../logger.ts";
import type { RedisLink } from "../cluster/redis.ts";
import { redisBudgetStore, type SharedBudgetStore, type SharedFigures } from "../cluster/budget-store.ts";
import type { Db } from "../db/client.ts";
import type { Budget } from "../llm/index.ts";
import type { AskBudget } from "../shared/ask.ts";
import { budgetState, dayStart, hasLimits, nextReset, refuseWhenSpent, stateFrom, type BudgetState } from "./budget.ts";
import { answerBudget, mirror, within, type SharedFiguresAccess } from "./spend-shared-budget.ts";

export { REDIS_DOWN } from "./spend-shared-budget.ts";

/** A hold lives this long unless renewed (its process renews it every third of it while the request runs). */
export const HOLD_LEASE_MS = 60_000;
/** How long a request waits for Redis to confirm its hold before it is refused. */
export const HOLD_WAIT_MS = 3_000;
/** A day's figures stay a day after the day ends (an answer started before midnight still charges them). */
const KEEP_AFTER_DAY_MS = 86_400_000;
export interface SharedLedgerOptions {
  log?: Logger;
  /** Tests: another store (the real one by default). */
  store?: SharedBudgetStore;
  leaseMs?: number;
  waitMs?: number;
}

export function createSharedSpendLedger(db: Db, redis: RedisLink, options: SharedLedgerOptions = {}) {
  const store = options.store ?? redisBudgetStore(redis);
  const leaseMs = options.leaseMs ?? HOLD_LEASE_MS;
  const waitMs = options.waitMs ?? HOLD_WAIT_MS;
  const log = options.log;
  const keyOf = (workspaceId: string, now: Date) =>
    store.key("ask-budget", workspaceId, dayStart(now).toISOString().slice(0, 10));
  const shared = (l: AskBudget) => ({ maxTokens: l.maxTokens, maxUsd: l.maxCostUsd });

  /** Holds of this process's running requests, renewed while they run: id → key. */
  const live = new Map<string, string>();
  let renewing: NodeJS.Timeout | undefined;
  function track(id: string, key: string) {
    live.set(id, key);
    renewing ??= setInterval(() => {
      const byKey = new Map<string, string[]>();
      for (const [h, k] of live) byKey.set(k, [...(byKey.get(k) ?? []), h]);
      for (const [k, ids] of byKey)
        store.renew(k, ids, leaseMs).catch((err: unknown) => log?.warn({ err }, "chat budget: holds not renewed"));
    }, leaseMs / 3);
    renewing.unref();
  }
  function untrack(id: string) {
    live.delete(id);
    if (live.size === 0 && renewing) {
      clearInterval(renewing);
      renewing = undefined;
    }
  }

  /** The day's figures, created from the database's day spend when no node has created them yet. */
  async function seeded(key: string, workspaceId: string, limits: AskBudget, now: Date): Promise<SharedFigures> {
    const existing = await store.setLimits(key, shared(limits));
    if (existing) return existing;
    const s = await budgetState(db, workspaceId, now, limits);
    const expireAt = nextReset(now).getTime() + KEEP_AFTER_DAY_MS;
    return store.init(key, { tokens: s.spent.tokens, usd: s.spent.costUsd }, shared(limits), expireAt);
  }

  /** What each answer's budget uses of this ledger (spend-shared-budget.ts). */
  const figures: SharedFiguresAccess = { store, leaseMs, waitMs, log, track, untrack, seeded };

  const stateOf = (limits: AskBudget, f: SharedFigures, now: Date): BudgetState =>
    stateFrom(limits, { tokens: f.tokens, costUsd: f.usd }, now);

  /** Today's state: the shared figures when some node started an answer today, else the database's. */
  async function state(workspaceId: string, limits: AskBudget, now = new Date()): Promise<BudgetState> {
    if (hasLimits(limits)) {
      try {
        const f = await within(store.read(keyOf(workspaceId, now)), waitMs);
        if (f) return stateOf(limits, f, now);
      } catch (err) {
        log?.warn({ err: (err as Error).message, workspaceId }, "chat budget: Redis unreachable, read the database");
      }
    }
    return budgetState(db, workspaceId, now, limits);
  }

  return {
    state,

    /** Refuses (409, with when it resets) a question when today's budget is spent (budget.ts). */
    refuseIfSpent: (workspaceId: string, limits: AskBudget, now = new Date()) =>
      refuseWhenSpent(state, workspaceId, limits, now),

    /**
     * An answer starts: the budget its model requests spend from (undefined without a limit), its state
     * now, and `leave` for when it ends. Redis unreachable here: the state comes from the database and
     * the answer's first request is refused (REDIS_DOWN) unless Redis is back by then.
     */
    async join(
      workspaceId: string,
      limits: AskBudget,
      now = new Date(),
    ): Promise<{ budget: Budget | undefined; state: BudgetState | undefined; leave: () => void }> {
      if (!hasLimits(limits)) return { budget: undefined, state: undefined, leave: () => undefined };
      const key = keyOf(workspaceId, now);
      const budget = answerBudget(figures, key, workspaceId, limits, now);
      let s: BudgetState;
      try {
        const f = await within(seeded(key, workspaceId, limits, now), waitMs);
        mirror(budget, f);
        s = stateOf(limits, f, now);
      } catch (err) {
        log?.warn({ err: (err as Error).message, workspaceId }, "chat budget: Redis unreachable at an answer's start");
        s = await budgetState(db, workspaceId, now, limits);
        budget.spentTokens = s.spent.tokens;
        budget.spentUsd = s.spent.costUsd;
      }
      return { budget, state: s, leave: () => undefined };
    },

    /** An owner changed the limits: answers running now, on any node, spend within the new ones. */
    async limitsChanged(workspaceId: string, limits: AskBudget): Promise<void> {
      try {
        await within(store.setLimits(keyOf(workspaceId, new Date()), shared(limits)), waitMs);
      } catch (err) {
        // Each answer sets the limits again as it starts; until then running ones keep the old ones.
        log?.warn({ err: (err as Error).message, workspaceId }, "chat budget: new limits not passed to Redis");
      }
    },
  };
}
