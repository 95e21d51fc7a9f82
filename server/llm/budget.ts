/**
 * Token and cost budgets. A Budget is shared by every request of one job; a request may also carry its
 * own maxCostUsd. Before a call the client checks the estimated prompt against what is left and lowers
 * max_tokens so the answer cannot overrun: the model then stops with max_tokens, which is a clean stop
 * the caller already handles, instead of a request killed halfway. While a request runs, the most it
 * may spend (its prompt estimate plus its max_tokens) is held on the budget and released when its
 * usage is charged: requests running at once on one shared budget (concurrent answers of a workspace,
 * server/ask/spend.ts) cannot together spend more than is left.
 *
 * A budget shared beyond this process (several worker processes on one Redis, server/ask/spend-shared.ts, its reserve in spend-shared-budget.ts)
 * sets `reserve`: the client then awaits it instead of fitToBudget + hold(), so the check and the hold
 * are one atomic step where the figures live. Its own fields are then a mirror of the shared figures
 * (what the agent loop's "nearly spent" reads). Without `reserve` — reviews, pipelines, one process —
 * nothing changes.
 */
import type { Pricing } from "./catalog.ts";
import type { Message, ToolDefinition, Usage } from "./types.ts";

export interface BudgetLimits {
  /** Input + output tokens across the job. */
  maxTokens?: number;
  maxCostUsd?: number;
}

/** What one request holds on a budget until it ends: `charge` turns the hold into its usage, `release` frees it (the first call wins, later ones do nothing). */
export interface BudgetHold {
  charge(usage: Usage, costUsd: number | undefined): void;
  release(): void;
}

export interface ReserveRequest {
  estimatedInput: number;
  /** The most the request would ask for; the reservation may lower it. */
  maxTokens: number;
  pricing: Pricing | undefined;
  requestMaxUsd?: number;
}

export type Reservation =
  | { ok: true; maxTokens: number; hold?: BudgetHold }
  /** `kind`: how the client reports the refusal (default budget_exceeded: the budget is spent). */
  | { ok: false; reason: string; kind?: "budget_exceeded" | "bad_request" };

export class Budget {
  spentTokens = 0;
  spentUsd = 0;
  /** True once a request was charged without a price (unknown model): cost limits cannot be trusted. */
  unpriced = false;
  /** What running requests may still spend (held until their usage is charged). */
  heldTokens = 0;
  heldUsd = 0;

  /** Set by a budget shared beyond this process: checks and holds a request atomically where the figures live. */
  reserve?: (request: ReserveRequest) => Promise<Reservation>;

  constructor(readonly limits: BudgetLimits) {}

  remainingTokens(): number {
    return this.limits.maxTokens === undefined ? Infinity : this.limits.maxTokens - this.spentTokens - this.heldTokens;
  }

  remainingUsd(): number {
    return this.limits.maxCostUsd === undefined ? Infinity : this.limits.maxCostUsd - this.spentUsd - this.heldUsd;
  }

  /** Holds what a request may spend; the returned function releases it (once; later calls do nothing). */
  hold(tokens: number, usd: number): () => void {
    this.heldTokens += tokens;
    this.heldUsd += usd;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.heldTokens -= tokens;
      this.heldUsd -= usd;
    };
  }

  charge(usage: Usage, costUsd: number | undefined): void {
    this.spentTokens += usage.inputTokens + usage.outputTokens;
    if (costUsd === undefined) this.unpriced = true;
    else this.spentUsd += costUsd;
  }
}

/**
 * The check and hold of a budget in this process: fitToBudget, then (with a budget) hold what the
 * request may spend — its prompt estimate plus its max_tokens, priced when the model has a price.
 */
export function reserveLocally(budget: Budget | undefined, r: ReserveRequest): Reservation {
  const fit = fitToBudget({ ...r, budget });
  if (!fit.ok || !budget) return fit;
  let charged = false;
  const release = budget.hold(r.estimatedInput + fit.maxTokens, holdUsd(r.pricing, r.estimatedInput, fit.maxTokens));
  return {
    ok: true,
    maxTokens: fit.maxTokens,
    hold: {
      release() {
        charged = true;
        release();
      },
      charge(usage, costUsd) {
        if (charged) return;
        charged = true;
        release();
        budget.charge(usage, costUsd);
      },
    },
  };
}

/** The most a request may cost: its prompt estimate and max_tokens at the model's price (0 unpriced). */
export function holdUsd(pricing: Pricing | undefined, estimatedInput: number, maxTokens: number): number {
  return pricing ? (estimatedInput * pricing.inputPerMTok + maxTokens * pricing.outputPerMTok) / 1_000_000 : 0;
}

export const createBudget = (limits: BudgetLimits) => new Budget(limits);

/**
 * Rough prompt size: about 4 characters per token for English and code. Errs high on purpose, since
 * it only decides whether a request may start.
 */
export function estimateInputTokens(system: string | undefined, messages: Message[], tools: ToolDefinition[]): number {
  let chars = system?.length ?? 0;
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === "text") chars += b.text.length;
      else if (b.type === "tool_use") chars += b.name.length + JSON.stringify(b.input).length;
      else if (b.type === "tool_result")
        chars += typeof b.content === "string" ? b.content.length : JSON.stringify(b.content).length;
      else if (b.type === "reasoning") chars += b.text.length;
      else chars += 6000; // an image is roughly 1,500 tokens
    }
  }
  for (const t of tools) chars += t.name.length + t.description.length + JSON.stringify(t.inputSchema).length;
  return Math.ceil(chars / 4);
}

export type BudgetCheck = { ok: true; maxTokens: number } | { ok: false; reason: string };

/**
 * Decides whether a request fits and the largest max_tokens it may use. `budgets` are the job budget
 * (if any) and the request's own cost ceiling.
 */
export function fitToBudget(opts: {
  estimatedInput: number;
  maxTokens: number;
  pricing: Pricing | undefined;
  budget?: Budget;
  requestMaxUsd?: number;
}): BudgetCheck {
  let maxTokens = opts.maxTokens;
  const tokensLeft = opts.budget?.remainingTokens() ?? Infinity;
  if (tokensLeft !== Infinity) {
    const room = tokensLeft - opts.estimatedInput;
    if (room < 1)
      return {
        ok: false,
        reason: `token budget exhausted (${opts.budget!.spentTokens} of ${opts.budget!.limits.maxTokens} used, prompt ≈ ${opts.estimatedInput})`,
      };
    maxTokens = Math.min(maxTokens, room);
  }
  const usdLeft = Math.min(opts.budget?.remainingUsd() ?? Infinity, opts.requestMaxUsd ?? Infinity);
  if (usdLeft !== Infinity) {
    if (!opts.pricing) return { ok: false, reason: "a cost budget is set but this model has no known price" };
    const inputUsd = (opts.estimatedInput * opts.pricing.inputPerMTok) / 1_000_000;
    const room = Math.floor(((usdLeft - inputUsd) * 1_000_000) / opts.pricing.outputPerMTok);
    if (room < 1)
      return {
        ok: false,
        reason: `cost budget exhausted ($${usdLeft.toFixed(4)} left, prompt ≈ $${inputUsd.toFixed(4)})`,
      };
    maxTokens = Math.min(maxTokens, room);
  }
  return { ok: true, maxTokens };
}
