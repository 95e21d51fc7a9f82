/**
 * One answer's budget on the shared figures (spend-shared.ts): a mirror of the day's figures in Redis
 * whose model requests hold, charge and release there. Also what the ledger shares with it: waiting on
 * Redis for a bounded time (`within`) and copying its figures into a budget (`mirror`).
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../logger.ts";
import type { SharedBudgetStore, SharedFigures } from "../cluster/budget-store.ts";
import { Budget, fitToBudget, holdUsd, type BudgetHold, type Reservation, type ReserveRequest } from "../llm/index.ts";
import type { AskBudget } from "../shared/ask.ts";

/** Tries to fit a request to figures other nodes keep changing before giving up. */
const MAX_TRIES = 8;

export const REDIS_DOWN =
  "the workspace's daily chat budget is shared through Redis, which is not answering, so Argus cannot check it: no model request is sent until Redis is back. Ask again in a moment; if it persists, the operator should check REDIS_URL.";

class Unanswered extends Error {}

export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Unanswered(`no answer from Redis in ${ms} ms`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

export function mirror(b: Budget, f: SharedFigures) {
  b.spentTokens = f.tokens;
  b.spentUsd = f.usd;
  b.heldTokens = f.heldTokens;
  b.heldUsd = f.heldUsd;
  b.limits.maxTokens = f.maxTokens ?? undefined;
  b.limits.maxCostUsd = f.maxUsd ?? undefined;
}

/** What an answer's budget uses of the ledger: the store, its timings and this process's holds. */
export interface SharedFiguresAccess {
  store: SharedBudgetStore;
  leaseMs: number;
  waitMs: number;
  log: Logger | undefined;
  /** A hold of this process's, renewed while its request runs … */
  track: (id: string, key: string) => void;
  /** … until it is charged or released. */
  untrack: (id: string) => void;
  /** The day's figures, created from the database's day spend when no node has created them yet. */
  seeded: (key: string, workspaceId: string, limits: AskBudget, now: Date) => Promise<SharedFigures>;
}

/** One answer's budget: a mirror of the figures whose requests reserve in Redis. */
export function answerBudget(
  figures: SharedFiguresAccess,
  key: string,
  workspaceId: string,
  limits: AskBudget,
  now: Date,
): Budget {
  const { store, leaseMs, waitMs, log, track, untrack, seeded } = figures;
  const budget = new Budget({});
  budget.limits.maxTokens = limits.maxTokens ?? undefined;
  budget.limits.maxCostUsd = limits.maxCostUsd ?? undefined;
  const apply = (f: SharedFigures | undefined) => f && mirror(budget, f);

  function holdOf(id: string, tokens: number, usd: number): BudgetHold {
    let open = true;
    const close = () => {
      open = false;
      untrack(id);
      budget.heldTokens -= tokens;
      budget.heldUsd -= usd;
    };
    return {
      charge(usage, costUsd) {
        if (!open) return;
        close();
        budget.charge(usage, costUsd); // the mirror, until Redis's reply replaces it
        const spent = usage.inputTokens + usage.outputTokens;
        // Sent on the main connection: while Redis is away it waits and goes when Redis is back.
        store
          .settle(key, id, spent, costUsd ?? 0)
          .then(apply)
          .catch((err: unknown) => log?.warn({ err, workspaceId }, "chat budget: charge not recorded in Redis"));
      },
      release() {
        if (!open) return;
        close();
        store
          .release(key, id)
          .then(apply)
          .catch((err: unknown) => log?.warn({ err, workspaceId }, "chat budget: hold not released (it expires)"));
      },
    };
  }

  budget.reserve = async (r: ReserveRequest): Promise<Reservation> => {
    const id = randomUUID();
    let fresh = false;
    try {
      for (let i = 0; i < MAX_TRIES; i++) {
        // Fitted to the latest figures this answer saw; Redis decides whether they still hold.
        const fit = fitToBudget({ ...r, budget });
        if (!fit.ok) {
          if (fresh) return fit;
          const f = await within(store.figures(key), waitMs);
          mirror(budget, f ?? (await within(seeded(key, workspaceId, limits, now), waitMs)));
          fresh = true;
          continue;
        }
        const tokens = r.estimatedInput + fit.maxTokens;
        const usd = holdUsd(r.pricing, r.estimatedInput, fit.maxTokens);
        let held;
        try {
          held = await within(store.hold(key, id, tokens, usd, leaseMs), waitMs);
        } catch (err) {
          // The hold may still reach Redis later: its release follows it on the same connection.
          store.release(key, id).catch(() => undefined);
          throw err;
        }
        fresh = true;
        if (held.status === "missing") {
          // Redis lost the day's figures (a restart without persistence): created again from the database.
          mirror(budget, await within(seeded(key, workspaceId, limits, now), waitMs));
          continue;
        }
        mirror(budget, held.figures);
        if (held.status === "ok") {
          track(id, key);
          return { ok: true, maxTokens: fit.maxTokens, hold: holdOf(id, tokens, usd) };
        }
      }
      return {
        ok: false,
        reason: "the workspace's daily chat budget is changing too fast to fit this request; ask again",
        kind: "bad_request",
      };
    } catch (err) {
      log?.warn({ err: (err as Error).message, workspaceId }, "chat budget: Redis unreachable, request refused");
      // Not budget_exceeded: that ends an answer quietly as "budget nearly spent"; this fails it with why.
      return { ok: false, reason: REDIS_DOWN, kind: "bad_request" };
    }
  };
  return budget;
}
