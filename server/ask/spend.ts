/**
 * The daily chat budget while answers run. With Redis (REDIS_URL, several worker processes) the
 * ledger is spend-shared.ts, with the same methods: the figures live in Redis and every node's
 * requests check and hold there. Without it (the embedded default), what follows.
 *
 * Every running answer of a workspace in this process spends
 * from one shared LLM budget (server/llm/budget.ts) set to the workspace's limits and what was spent
 * today when the first of them started: each model request holds what it may spend until its usage
 * is charged, so answers running at once cannot together go past the limit (each request's max_tokens
 * is cut to what the others leave). The entry goes when the last running answer ends; the next one
 * reads the day's spend from the database again, where every answer's usage is written as it streams
 * (runner.ts), so answers that ran on other nodes count too.
 *
 * With no limit set there is nothing to hold or check: no entry, no query.
 */
import { Budget, type BudgetLimits } from "../llm/index.ts";
import type { RedisLink } from "../cluster/redis.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { AskBudget } from "../shared/ask.ts";
import { budgetState, dayStart, hasLimits, refuseWhenSpent, stateFrom, type BudgetState } from "./budget.ts";
import { createSharedSpendLedger } from "./spend-shared.ts";

interface Live {
  day: number;
  budget: Budget;
  answers: number;
}

export { hasLimits };

const limitsOf = (b: AskBudget): BudgetLimits => ({
  ...(b.maxTokens !== null ? { maxTokens: b.maxTokens } : {}),
  ...(b.maxCostUsd !== null ? { maxCostUsd: b.maxCostUsd } : {}),
});

/** The ledger: shared through Redis when there is one (several processes), else this process's own. */
export function createSpendLedger(db: Db, redis?: RedisLink, log?: Logger): SpendLedger {
  return redis ? createSharedSpendLedger(db, redis, log ? { log } : {}) : createLocalSpendLedger(db);
}

export function createLocalSpendLedger(db: Db) {
  const live = new Map<string, Promise<Live>>();

  /** The day's state from the live budget (this process's answers charged into it as they go). */
  const stateOf = (limits: AskBudget, b: Budget, now: Date): BudgetState =>
    stateFrom(limits, { tokens: b.spentTokens, costUsd: b.spentUsd }, now);

  async function current(workspaceId: string, now: Date): Promise<Live | undefined> {
    const entry = await live.get(workspaceId)?.catch(() => undefined);
    return entry && entry.day === dayStart(now).getTime() ? entry : undefined;
  }

  /** Today's state: the live budget's while answers of the workspace run here, else the database's. */
  async function state(workspaceId: string, limits: AskBudget, now = new Date()): Promise<BudgetState> {
    const entry = await current(workspaceId, now);
    if (entry) return stateOf(limits, entry.budget, now);
    return budgetState(db, workspaceId, now, limits);
  }

  return {
    state,

    /** Refuses (409, with when it resets) a question when today's budget is spent (budget.ts). */
    refuseIfSpent: (workspaceId: string, limits: AskBudget, now = new Date()) =>
      refuseWhenSpent(state, workspaceId, limits, now),

    /**
     * An answer starts: the budget its model requests spend from (undefined without a limit), its state
     * now, and `leave` for when it ends.
     */
    async join(
      workspaceId: string,
      limits: AskBudget,
      now = new Date(),
    ): Promise<{ budget: Budget | undefined; state: BudgetState | undefined; leave: () => void }> {
      if (!hasLimits(limits)) return { budget: undefined, state: undefined, leave: () => undefined };
      let entry = await current(workspaceId, now);
      if (!entry) {
        const made = budgetState(db, workspaceId, now, limits).then((s): Live => {
          const budget = new Budget(limitsOf(limits));
          budget.spentTokens = s.spent.tokens;
          budget.spentUsd = s.spent.costUsd;
          return { day: dayStart(now).getTime(), budget, answers: 0 };
        });
        live.set(workspaceId, made);
        try {
          entry = await made;
        } catch (err) {
          if (live.get(workspaceId) === made) live.delete(workspaceId);
          throw err;
        }
      }
      const joined = entry;
      joined.answers++;
      let left = false;
      return {
        budget: joined.budget,
        state: stateOf(limits, joined.budget, now),
        leave: () => {
          if (left) return;
          left = true;
          if (--joined.answers === 0) {
            const e = live.get(workspaceId);
            void e?.then((x) => {
              if (x === joined && x.answers === 0 && live.get(workspaceId) === e) live.delete(workspaceId);
            });
          }
        },
      };
    },

    /** An owner changed the limits: answers running now spend within the new ones. */
    async limitsChanged(workspaceId: string, limits: AskBudget): Promise<void> {
      const entry = await live.get(workspaceId)?.catch(() => undefined);
      if (!entry) return;
      entry.budget.limits.maxTokens = limits.maxTokens ?? undefined;
      entry.budget.limits.maxCostUsd = limits.maxCostUsd ?? undefined;
    },
  };
}

export type SpendLedger = ReturnType<typeof createLocalSpendLedger>;
