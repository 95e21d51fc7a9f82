/**
 * The workspace's daily chat budget: owners set a limit in tokens, dollars or both (ask_budget); every
 * answer's tokens and cost of the current UTC day count against it (ask_message). Past the limit a
 * question is refused with the time the budget resets (the next 00:00 UTC); under it, an answer may
 * spend at most what is left (the agent loop then answers with what it found, never silently cut).
 */
import type { Db } from "../db/client.ts";
import { conflict } from "../errors.ts";
import type { AskBudget } from "../shared/ask.ts";

export interface BudgetState {
  budget: AskBudget;
  spent: { tokens: number; costUsd: number };
  /** Start of the next UTC day (ISO). */
  resetsAt: string;
  /** What an answer may still spend today (undefined: no limit of that kind). */
  remaining: { maxTokens?: number; maxCostUsd?: number };
  exhausted: boolean;
}

/** Whether a limit of either kind is set (without one there is nothing to hold, check or read). */
export const hasLimits = (b: AskBudget) => b.maxTokens !== null || b.maxCostUsd !== null;

export function dayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function nextReset(now: Date): Date {
  return new Date(dayStart(now).getTime() + 86_400_000);
}

/** "in 3 h 20 min" / "in 12 min": how long until the reset. */
export function untilReset(now: Date, at: Date): string {
  const minutes = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 60_000));
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h ? `in ${h} h${m ? ` ${m} min` : ""}` : `in ${m} min`;
}

/**
 * Today's spend against the limits. `known`: the limits as the caller already read them (with the
 * thread or project), so only the day's sum is read. Running answers count with what they have spent
 * so far (their usage is written as it streams).
 */
export async function budgetState(
  db: Db,
  workspaceId: string,
  now = new Date(),
  known?: AskBudget,
): Promise<BudgetState> {
  const [row, spent] = await Promise.all([
    known ?? db.askBudget.findUnique({ where: { workspaceId } }),
    db.askMessage.aggregate({
      where: { workspaceId, kind: "answer", createdAt: { gte: dayStart(now) } },
      _sum: { inputTokens: true, outputTokens: true, costUsd: true },
    }),
  ]);
  const budget: AskBudget = { maxTokens: row?.maxTokens ?? null, maxCostUsd: row?.maxCostUsd ?? null };
  const tokens = (spent._sum.inputTokens ?? 0) + (spent._sum.outputTokens ?? 0);
  return stateFrom(budget, { tokens, costUsd: spent._sum.costUsd ?? 0 }, now);
}

/** The day's state from the limits and what was spent, wherever the figures were read (database, ledger). */
export function stateFrom(budget: AskBudget, spent: BudgetState["spent"], now: Date): BudgetState {
  const remaining = {
    ...(budget.maxTokens !== null ? { maxTokens: Math.max(0, budget.maxTokens - spent.tokens) } : {}),
    ...(budget.maxCostUsd !== null ? { maxCostUsd: Math.max(0, budget.maxCostUsd - spent.costUsd) } : {}),
  };
  return {
    budget,
    spent,
    resetsAt: nextReset(now).toISOString(),
    remaining,
    exhausted: remaining.maxTokens === 0 || (remaining.maxCostUsd !== undefined && remaining.maxCostUsd <= 0),
  };
}

/**
 * Refuses (409, with when it resets) a question when today's budget is spent, by a ledger's `state`;
 * nothing is read without a limit.
 */
export async function refuseWhenSpent(
  state: (workspaceId: string, limits: AskBudget, now: Date) => Promise<BudgetState>,
  workspaceId: string,
  limits: AskBudget,
  now = new Date(),
): Promise<void> {
  if (!hasLimits(limits)) return;
  const s = await state(workspaceId, limits, now);
  if (s.exhausted) throw conflict(budgetRefusal(s, now));
}

/** The refusal when today's budget is spent: what was spent, the limit, and when it resets. */
export function budgetRefusal(state: BudgetState, now = new Date()): string {
  const limits = [
    state.budget.maxTokens !== null
      ? `${state.spent.tokens.toLocaleString("en")} of ${state.budget.maxTokens.toLocaleString("en")} tokens`
      : null,
    state.budget.maxCostUsd !== null
      ? `$${state.spent.costUsd.toFixed(2)} of $${state.budget.maxCostUsd.toFixed(2)}`
      : null,
  ].filter(Boolean);
  const at = new Date(state.resetsAt);
  return `The workspace's daily chat budget is spent (${limits.join(", ")} used today). It resets at 00:00 UTC (${at.toISOString().slice(0, 16).replace("T", " ")} UTC, ${untilReset(now, at)}); an owner can raise it in Settings.`;
}

export async function requireBudget(db: Db, workspaceId: string, now = new Date()): Promise<BudgetState> {
  const state = await budgetState(db, workspaceId, now);
  if (state.exhausted) throw conflict(budgetRefusal(state, now));
  return state;
}
