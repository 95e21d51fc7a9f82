/**
 * Runs a thread's answers, one at a time and in the order they were asked: an answer waits as
 * `queued` while another of its thread runs. Each answer streams into the thread's room — tokens,
 * tool calls with their arguments, result previews, the cost after each request — and ends as one
 * `ask.message` with the final text, the checked citations and the usage. A provider's error ends
 * the answer as failed with the error in words; the thread stays usable. One process: the queue and
 * the cancel switches are in memory (on restart, answers left running or queued are failed).
 *
 * With a shared queue (REDIS_URL) a thread's drain is a job (ASK_THREAD_JOB, one waiting and one
 * more after a running one per thread: its dedupe key), run by whichever worker takes it: the order
 * and the "one at a time" come from the rows, as in one process. A cancel reaches the answer's node
 * through a signal; an answer whose worker died is failed with the reason, and the thread's queued
 * answers go on.
 */
import type { Config } from "../config.ts";
import type { Db, AskMessage as AskMessageRow } from "../db/client.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { publicError } from "../errors-public.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { codeSearchFor } from "../review/job.ts";
import type { StaticInput } from "../review/static-engine.ts";
import type { AgentEvent } from "../review/agent/events.ts";
import { snapshotDirs } from "../snapshots/storage.ts";
import type { AskToolCall } from "../shared/ask.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import { answerQuestion } from "./answer.ts";
import { budgetRefusal, budgetState, type BudgetState } from "./budget.ts";
import { buildHistory, historyBudget, type PastTurn } from "./history.ts";
import { messageView, parseDetails, roomOf, threadInclude, userNames, type Details, type ThreadRow } from "./views.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { Signals } from "../cluster/signals.ts";

export const ASK_THREAD_JOB = "ask.thread";
/** Stops a running answer on whichever node runs it: `{ answerId }`. */
export const CANCEL_ANSWER_SIGNAL = "ask.cancel";
export const ANSWER_STOPPED = {
  worker: "The worker answering this stopped before it finished (its process ended). Ask again.",
  abandoned: "Two workers stopped while answering this (their processes ended), so it was given up. Ask again.",
} as const;

/** An answer the service just queued: its rows as written, and the budget it checked a moment ago. */
export interface QueuedAnswer {
  answer: AskMessageRow;
  thread: ThreadRow;
  budget: BudgetState;
  /** A new thread's: its question, and no earlier turns. */
  conversation?: { question: AskMessageRow; turns: PastTurn[] };
}

export interface RunnerDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  searchIndexes: IndexCache;
  /** The model a workspace's answers use, or null when none is configured. */
  chatModel: (workspaceId: string) => Promise<LlmClientOptions | null>;
  /** A shared queue (durable): threads are drained by workers. Otherwise this process drains them. */
  queue?: JobQueue;
  signals?: Signals;
}

export function createAnswerRunner(deps: RunnerDeps) {
  const { db, events, log } = deps;
  /** Threads with a drain running; `again`: an answer was queued meanwhile. */
  const draining = new Map<string, { again: boolean }>();
  /** Cancel switches of running answers, by answer id. */
  const running = new Map<string, AbortController>();
  /** Settles when a thread's drain ends (tests and shutdown wait on it). */
  const idle = new Map<string, Promise<void>>();

  async function publishMessage(thread: ThreadRow, m: AskMessageRow): Promise<void> {
    const names = await userNames(db, [m.authorId]);
    await events.publish(roomOf(thread), {
      type: "ask.message",
      payload: { message: messageView(m, thread.uid, names) },
    });
  }

  /**
   * The answer's question and the thread's earlier answered turns, oldest first, in one read (answers
   * run in order: every done one is earlier than this answer, whose question is among the rows).
   */
  async function conversation(answer: AskMessageRow): Promise<{ question: AskMessageRow; turns: PastTurn[] }> {
    const rows = await db.askMessage.findMany({
      where: { threadId: answer.threadId, createdAt: { lte: answer.createdAt } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const questions = new Map(rows.filter((r) => r.kind === "question").map((r) => [r.id, r]));
    const question = questions.get(answer.questionId!);
    if (!question) throw new Error(`answer ${answer.uid} has no question`);
    const turns = rows
      .filter((r) => r.kind === "answer" && r.status === "done" && r.questionId && questions.has(r.questionId))
      .map((a) => ({
        question: questions.get(a.questionId!)!.body,
        answer: a.body,
        tools: parseDetails(a.details).toolCalls.map((t) => ({ name: t.name, input: t.input })),
      }));
    return { question, turns };
  }

  /**
   * Runs one answer. `known`: an answer that starts the moment it was queued, so the first model
   * request does not wait for reading back what the service just wrote and checked.
   */
  async function run(answerId: string, known?: QueuedAnswer): Promise<void> {
    const claimed = await db.askMessage.updateMany({
      where: { id: answerId, status: "queued" },
      data: { status: "running" },
    });
    if (claimed.count === 0) return; // cancelled while it waited
    const controller = new AbortController();
    running.set(answerId, controller);
    let loaded: Omit<QueuedAnswer, "budget"> | undefined = known;
    if (!loaded) {
      const { thread, ...row } = await db.askMessage.findUniqueOrThrow({
        where: { id: answerId },
        include: { thread: { include: threadInclude } },
      });
      loaded = { answer: row, thread: thread as ThreadRow };
    }
    let answer: AskMessageRow = { ...loaded.answer, status: "running" };
    const thread = loaded.thread;
    const room = roomOf(thread);
    const ids = { threadId: thread.uid, answerId: answer.uid };
    const details: Details = { toolCalls: [], citations: [], hits: [], notes: [] };
    // "running" goes out while the model is being asked (nothing waits on the write; the bus keeps the
    // room's order), and the final state only after it.
    const started = publishMessage(thread, answer).catch((err: unknown) =>
      log.warn({ err, answer: answer.uid }, "answer event not published"),
    );
    const finish = async (data: Partial<AskMessageRow>) => {
      answer = await db.askMessage.update({
        where: { id: answerId },
        data: { ...data, details: JSON.stringify(details), finishedAt: new Date() },
      });
      await db.askThread.update({ where: { id: thread.id }, data: { updatedAt: new Date() } });
      await started;
      await publishMessage(thread, answer);
    };
    try {
      // Everything the first model request needs, read at once.
      const [budget, llm, { question, turns }] = await Promise.all([
        known?.budget ?? budgetState(db, thread.workspaceId),
        deps.chatModel(thread.workspaceId),
        known?.conversation ?? conversation(answer),
      ]);
      if (budget.exhausted) return await finish({ status: "failed", error: budgetRefusal(budget) });
      const dirs = snapshotDirs(deps.config.dataDir, thread.projectId, thread.snapshotId);
      const history = buildHistory({
        context: thread.context,
        turns,
        maxTokens: llm ? historyBudget(llm.provider, llm.model ?? "") : 0,
      });
      if (history.dropped) details.notes.push(`${history.dropped} earlier turn(s) left out to fit the model's context`);
      const byId = new Map<string, AskToolCall>();
      // What was streamed, kept as the answer when it is cancelled midway (the loop returns no text then).
      let streamed = "";
      const onEvent = (e: AgentEvent) => {
        const send = (body: RoomEventBody<"project">) =>
          void events
            .publish(room, body)
            .catch((err: unknown) => log.warn({ err, answer: answer.uid }, "answer event not published"));
        if (e.type === "token") {
          streamed += e.text;
          send({ type: "ask.token", payload: { ...ids, text: e.text } });
        } else if (e.type === "tool_call") {
          const call: AskToolCall = { id: e.id, name: e.name, input: e.input };
          byId.set(e.id, call);
          details.toolCalls.push(call);
          send({ type: "ask.tool_call", payload: { ...ids, id: e.id, name: e.name, input: e.input } });
        } else if (e.type === "tool_result") {
          const call = byId.get(e.id);
          const result = { isError: e.isError, preview: e.preview, chars: e.chars, durationMs: e.durationMs };
          if (call) call.result = result;
          send({ type: "ask.tool_result", payload: { ...ids, id: e.id, name: e.name, ...result } });
        } else if (e.type === "usage")
          send({
            type: "ask.usage",
            payload: {
              ...ids,
              usage: e.usage,
              requests: e.requests,
              ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
            },
          });
      };
      const staticFindings = async () =>
        (await db.staticFinding.findMany({ where: { snapshotId: thread.snapshotId } })) as StaticInput[];
      const out = await answerQuestion({
        root: dirs.src,
        symbolsPath: dirs.symbols,
        staticFindings,
        searchCode: codeSearchFor(deps.config, deps.searchIndexes, thread.snapshotId),
        llm,
        question: `${history.questionPrefix}${question.body}`,
        history: history.messages,
        budget: budget.remaining,
        signal: controller.signal,
        onEvent,
      });
      details.citations = out.citations;
      details.hits = out.hits;
      details.notes.push(...out.notes);
      const cancelled = out.stopReason === "cancelled" || controller.signal.aborted;
      await finish({
        body: out.text || (cancelled ? streamed : ""),
        mode: out.mode,
        model: out.model,
        status: cancelled ? "cancelled" : out.error ? "failed" : "done",
        error: cancelled ? null : (out.error ?? null),
        inputTokens: out.usage.inputTokens,
        outputTokens: out.usage.outputTokens,
        costUsd: out.costUsd ?? null,
      });
    } catch (err) {
      const cancelled = controller.signal.aborted;
      const message = cancelled
        ? null
        : publicError(err, { doing: "answering the question", log, context: { answer: answer.uid } }).message;
      await finish({ status: cancelled ? "cancelled" : "failed", error: message }).catch((e: unknown) =>
        log.error({ err: e, answer: answer.uid }, "could not record a failed answer"),
      );
    } finally {
      running.delete(answerId);
    }
  }

  async function drainOnce(threadId: string, first?: QueuedAnswer): Promise<void> {
    if (first) await run(first.answer.id, first);
    for (;;) {
      const next = await db.askMessage.findFirst({
        where: { threadId, kind: "answer", status: "queued" },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      if (!next) return;
      await run(next.id);
    }
  }

  const shared = deps.queue?.durable && deps.signals ? { queue: deps.queue, signals: deps.signals } : undefined;

  /** The thread's answers left running by a worker that stopped: failed, saying why. */
  async function failRunning(threadId: string, error: string): Promise<void> {
    const stuck = await db.askMessage.findMany({ where: { threadId, kind: "answer", status: "running" } });
    for (const a of stuck) {
      const { count } = await db.askMessage.updateMany({
        where: { id: a.id, status: "running" },
        data: { status: "failed", error, finishedAt: new Date() },
      });
      if (!count) continue;
      const row = await db.askMessage.findUniqueOrThrow({
        where: { id: a.id },
        include: { thread: { include: threadInclude } },
      });
      const { thread, ...answer } = row;
      await publishMessage(thread as ThreadRow, answer);
    }
  }

  if (shared) {
    shared.signals.subscribe(CANCEL_ANSWER_SIGNAL, ({ answerId }) => {
      if (typeof answerId === "string") running.get(answerId)?.abort(new Error("Cancelled by a user."));
    });
    shared.queue.register<{ threadId: string }>(
      ASK_THREAD_JOB,
      async ({ threadId }, ctx) => {
        if (ctx.takeover) await failRunning(threadId, ANSWER_STOPPED.worker);
        await drainOnce(threadId);
      },
      { concurrency: 4, abandoned: ({ threadId }) => failRunning(threadId, ANSWER_STOPPED.abandoned) },
    );
  }

  return {
    /**
     * Starts the thread's queue unless it runs already (then it picks the new answer up after the
     * current one). `queued`: the answer just queued and its thread, when the caller has them.
     */
    kick(threadId: string, queued?: QueuedAnswer): void {
      if (shared) {
        shared.queue
          .enqueue(ASK_THREAD_JOB, { threadId }, { dedupeKey: `ask-${threadId}` })
          .catch((err: unknown) => log.error({ err, threadId }, "could not queue a thread's answers"));
        return;
      }
      const d = draining.get(threadId);
      if (d) {
        d.again = true;
        return;
      }
      const state = { again: false };
      draining.set(threadId, state);
      const done = (async () => {
        try {
          let first = queued;
          do {
            state.again = false;
            await drainOnce(threadId, first);
            first = undefined;
          } while (state.again);
        } catch (err) {
          log.error({ err, threadId }, "a thread's answer queue stopped");
        } finally {
          draining.delete(threadId);
          idle.delete(threadId);
        }
      })();
      idle.set(threadId, done);
    },

    /**
     * Aborts a running answer: here, or (a shared queue) on the node that runs it, told by a signal.
     * False when it does not run (here, or anywhere: `status` is its row's).
     */
    async abort(answerId: string, status?: string): Promise<boolean> {
      const c = running.get(answerId);
      if (c) {
        c.abort(new Error("Cancelled by a user."));
        return true;
      }
      if (!shared || status !== "running") return false;
      await shared.signals.publish(CANCEL_ANSWER_SIGNAL, { answerId });
      return true;
    },

    /** Resolves when no answer runs or waits in this process. */
    async idle(): Promise<void> {
      while (idle.size) await Promise.all([...idle.values()]);
    },
  };
}

export type AnswerRunner = ReturnType<typeof createAnswerRunner>;
