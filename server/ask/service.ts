/**
 * Ask Argus: the team's conversations with the agent about a project's code. A thread belongs to a
 * project — and, asked from a review or one of its findings, to that review (its room, its snapshot,
 * the finding as context). Any member asks (in a thread, or with `@argus …` in a room's team chat);
 * every viewer of the room watches the answer stream in. Answers run one per thread at a time
 * (runner.ts), over the snapshot, within the workspace's daily chat budget (budget.ts).
 *
 * Authorization is requireRole on the thing's workspace for every call: viewers read, members ask and
 * cancel (asking spends the workspace's model budget), owners set the budget.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import type { AskMessage as AskMessageRow, Db, ProviderConnection } from "../db/client.ts";
import { conflict, notFound } from "../errors.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { ProviderService } from "../providers/service.ts";
import { chatModelFor } from "../providers/workspace-model.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { isAnswerActive, type AnswerStatus } from "../shared/ask.ts";
import { createAsking } from "./asking.ts";
import { budgetState } from "./budget.ts";
import { createSnapshotCache } from "./context.ts";
import { createEnqueue } from "./enqueue.ts";
import { createAnswerFindings } from "./findings.ts";
import type { budgetInput, cancelInput, setBudgetInput } from "./inputs.ts";
import { createAnswerRunner } from "./runner.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { RedisLink } from "../cluster/redis.ts";
import type { Signals } from "../cluster/signals.ts";
import { createSpendLedger } from "./spend.ts";
import { createThreadReads } from "./thread-reads.ts";
import { messageView, roomOf, threadInclude, type ThreadRow } from "./views.ts";

export {
  askInput,
  budgetInput,
  cancelInput,
  setBudgetInput,
  threadInput,
  threadsInput,
  type ForgeQuestion,
} from "./inputs.ts";

export interface AskServiceDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  providers: ProviderService;
  searchIndexes: IndexCache;
  /** With a shared queue, answers are drained by workers (runner.ts). */
  queue?: JobQueue;
  signals?: Signals;
  /** With Redis, the daily budget's figures are shared by every process (spend-shared.ts). */
  redis?: RedisLink;
  /** Told of every answer that ended (runner.ts): a pull request's `@argus` question gets its reply. */
  onAnswerEnded?: (answer: AskMessageRow) => void;
}

export function createAskService(deps: AskServiceDeps) {
  const { db, events, log } = deps;
  const ledger = createSpendLedger(db, deps.redis, log);
  const snapshots = createSnapshotCache(db);

  /**
   * The model a workspace's answers use (its first connection, read with the thread or project, else
   * the server's default); null when there is none — answers are then search results.
   */
  const modelFor = (workspaceId: string, connection: ProviderConnection | null) =>
    chatModelFor(deps.providers, workspaceId, connection);

  const runner = createAnswerRunner({ ...deps, ledger, modelFor });

  const enqueue = createEnqueue({ db, events, log, runner });
  /** Asking: in a thread, from a room's chat, from a pull request (asking.ts). */
  const asking = createAsking({ db, events, log, ledger, snapshots, enqueue });
  /** A project's threads, and one thread (thread-reads.ts). */
  const reads = createThreadReads(db);

  return {
    ask: asking.ask,
    /** Answer → finding (findings.ts). */
    findings: createAnswerFindings(deps),
    threads: reads.threads,
    thread: reads.thread,

    /** Stops a running answer (what it said so far is kept) or takes a queued one off the queue. */
    async cancel(actor: Actor, input: z.infer<typeof cancelInput>) {
      const a = await db.askMessage.findUnique({ where: { uid: input.answerUid } });
      if (!a || a.kind !== "answer") throw notFound(`No answer with id ${input.answerUid}.`);
      await requireRole(db, actor, a.workspaceId, "member");
      if (!isAnswerActive(a.status as AnswerStatus))
        throw conflict(`This answer is already ${a.status}; there is nothing to cancel.`);
      if (await runner.abort(a.id, a.status)) return { status: "cancelling" as const };
      const { count } = await db.askMessage.updateMany({
        where: { id: a.id, status: "queued" },
        data: { status: "cancelled", finishedAt: new Date() },
      });
      if (count === 0) throw conflict("This answer is no longer waiting (it started or ended meanwhile); look again.");
      const t = (await db.askThread.findUniqueOrThrow({
        where: { id: a.threadId },
        include: threadInclude,
      })) as ThreadRow;
      const row = await db.askMessage.findUniqueOrThrow({ where: { id: a.id } });
      await events.publish(roomOf(t), {
        type: "ask.message",
        payload: { message: messageView(row, t.uid, new Map()) },
      });
      return { status: "cancelled" as const };
    },

    async budget(actor: Actor, input: z.infer<typeof budgetInput>) {
      await requireRole(db, actor, input.workspaceId, "viewer");
      const s = await budgetState(db, input.workspaceId);
      return { ...s.budget, spent: s.spent, resetsAt: s.resetsAt, exhausted: s.exhausted };
    },

    async setBudget(actor: Actor, input: z.infer<typeof setBudgetInput>) {
      await requireRole(db, actor, input.workspaceId, "owner");
      const data = { maxTokens: input.maxTokens, maxCostUsd: input.maxCostUsd };
      await db.askBudget.upsert({
        where: { workspaceId: input.workspaceId },
        create: { workspaceId: input.workspaceId, ...data },
        update: data,
      });
      await ledger.limitsChanged(input.workspaceId, data);
      const s = await budgetState(db, input.workspaceId);
      return { ...s.budget, spent: s.spent, resetsAt: s.resetsAt, exhausted: s.exhausted };
    },

    /** The team chat's `@argus` hook, and a pull request's `@argus` question (asking.ts). */
    fromChat: asking.fromChat,
    fromForge: asking.fromForge,

    /** Answers cut off by the last shutdown (running or queued) are failed: a model conversation cannot be resumed. */
    async recoverInterrupted(): Promise<number> {
      const where = { kind: "answer", status: { in: ["queued", "running"] } };
      // Read first: an UPDATE takes SQLite's write lock even when nothing matches, and nodes starting
      // together on one file would wait on each other's start-up for nothing.
      if (!(await db.askMessage.findFirst({ where, select: { id: true } }))) return 0;
      const { count } = await db.askMessage.updateMany({
        where,
        data: {
          status: "failed",
          error: "Interrupted: Argus restarted before this answer was finished. Ask again.",
          finishedAt: new Date(),
        },
      });
      return count;
    },

    /** Resolves when no answer runs or waits (tests). */
    idle: () => runner.idle(),

    /** The "ask.thread" job (a thread drained by a worker), registered by the composition root. */
    threadJob: runner.threadJob,

    /** Shutdown: waiting answers are failed as interrupted, running ones get a bounded time (runner.ts). */
    shutdown: (graceMs?: number) => runner.shutdown(graceMs),
  };
}

export type AskService = ReturnType<typeof createAskService>;
