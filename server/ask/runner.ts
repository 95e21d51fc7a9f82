/**
 * Runs a thread's answers, one at a time and in the order they were asked: an answer waits as
 * `queued` while another of its thread runs. Each answer streams into the thread's room — tokens,
 * tool calls with their arguments, result previews, the cost after each request — and ends as one
 * `ask.message` with the final text, the checked citations and the usage. A provider's error ends
 * the answer as failed with the error in words; the thread stays usable. One process: the queue and
 * the cancel switches are in memory (on restart, answers left running or queued are failed).
 *
 * An answer that starts the moment it is asked (its thread had nothing running here) is handed over
 * with everything its first model request needs, already read by the service: the model is asked
 * while its rows are still being written (`written`), and every write of the answer waits for them.
 * Its usage is written as it streams, so today's spend (budget.ts) counts answers still running;
 * answers running at once in one workspace spend from one shared budget (spend.ts).
 *
 * Shutdown: answers still waiting are failed as interrupted (a model conversation cannot be resumed
 * by the next process), running ones get a bounded time to finish, then are stopped and kept as
 * interrupted with what they said so far.
 *
 * With a shared queue (REDIS_URL) a thread's drain is a job ("ask.thread", one waiting and one
 * more after a running one per thread: its dedupe key), run by whichever worker takes it: the order
 * and the "one at a time" come from the rows, as in one process, so every answer waits as queued
 * until a worker claims it. A cancel reaches the answer's node through a signal; an answer whose
 * worker died is failed with the reason, and the thread's queued answers go on. A worker shutting
 * down leaves queued answers queued (they are durable) and hands their thread to the next worker.
 */
import type { Config } from "../config.ts";
import type { Db, AskMessage as AskMessageRow, ProviderConnection } from "../db/client.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import { publicError } from "../errors-public.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import { codeSearchFor, type StaticInput, type AgentEvent } from "../agent/index.ts";
import { searchIndexName, snapshotDirs } from "../snapshots/storage.ts";
import type { AskBudget, AskToolCall } from "../shared/ask.ts";
import { afterFirstRequest, type LlmClientOptions } from "../llm/index.ts";
import { answerQuestion } from "./answer.ts";
import { budgetRefusal } from "./budget.ts";
import { answerForRun } from "./context.ts";
import { buildHistory, historyBudget, type PastTurn } from "./history.ts";
import type { SpendLedger } from "./spend.ts";
import { messageView, parseDetails, roomOf, threadInclude, type Details, type ThreadRow } from "./views.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { JobRegistration } from "../jobs/registry.ts";
import type { Signals } from "../cluster/signals.ts";

/** Stops a running answer on whichever node runs it: `{ answerId }`. */
export const CANCEL_ANSWER_SIGNAL = "ask.cancel";
export const ANSWER_STOPPED = {
  worker: "The worker answering this stopped before it finished (its process ended). Ask again.",
  abandoned: "Two workers stopped while answering this (their processes ended), so it was given up. Ask again.",
} as const;

/** An answer the service hands over: its rows as (being) written, and what it read for them. */
export interface QueuedAnswer {
  answer: AskMessageRow;
  thread: ThreadRow;
  limits: AskBudget;
  /** The workspace's first connection (null: the environment's default, or none). */
  connection: ProviderConnection | null;
  /** Settles when the question and answer rows are written; rejects when they could not be. */
  written: Promise<void>;
  /**
   * Lets the rows' write (and the announcements) go. The service holds them back only for an answer
   * `started` here, until its first model request is on the network (server/llm/request-sent.ts);
   * any other it lets go in the next turn itself. Idempotent.
   */
  bookkeeping?: () => void;
  /** Written as running (its thread had nothing running or waiting here): started without a claim. */
  started: boolean;
  /** The answer's question (its row may still be being written); absent: read with the conversation. */
  question?: AskMessageRow;
  /** A new thread's: its question, and no earlier turns. */
  conversation?: { question: AskMessageRow; turns: PastTurn[] };
}

export interface RunnerDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  searchIndexes: IndexCache;
  ledger: SpendLedger;
  /** The model a workspace's answers use, from its first connection; null when none is configured. */
  modelFor: (workspaceId: string, connection: ProviderConnection | null) => Promise<LlmClientOptions | null>;
  /** A shared queue (durable): threads are drained by workers. Otherwise this process drains them. */
  queue?: JobQueue;
  signals?: Signals;
  /** Told of every answer that ended (done, failed or cancelled): a PR's `@argus` question is replied to. */
  onAnswerEnded?: (answer: AskMessageRow) => void;
}

/** How long shutdown lets running answers finish before it stops them. */
export const SHUTDOWN_GRACE_MS = 10_000;

export const INTERRUPTED_QUEUED = "Interrupted: Argus was shut down before this answer started. Ask again.";
export const INTERRUPTED_RUNNING =
  "Interrupted: Argus was shut down while writing this answer; what it said so far is kept. Ask again.";

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    t.unref?.();
  });

export function createAnswerRunner(deps: RunnerDeps) {
  const { db, events, log } = deps;
  /** Threads with a drain running; `again`: an answer was queued meanwhile. */
  const draining = new Map<string, { again: boolean }>();
  /** Running answers by id: their cancel switch, and whether shutdown stopped them. */
  const running = new Map<string, { controller: AbortController; interrupted: boolean }>();
  /** Settles when a thread's drain ends (tests and shutdown wait on it). */
  const idle = new Map<string, Promise<void>>();
  let stopping = false;

  /** Answers have no author, so their view needs no names. */
  const publishAnswer = (thread: ThreadRow, m: AskMessageRow) =>
    events.publish(roomOf(thread), {
      type: "ask.message",
      payload: { message: messageView(m, thread.uid, new Map()) },
    });

  /**
   * The answer's question and the thread's earlier answered turns, oldest first, in one read (answers
   * run in order: every done one is earlier than this answer). The question may still be being
   * written: it is taken from memory when given.
   */
  async function conversation(
    answer: AskMessageRow,
    question?: AskMessageRow,
  ): Promise<{ question: AskMessageRow; turns: PastTurn[] }> {
    const rows = await db.askMessage.findMany({
      where: {
        threadId: answer.threadId,
        createdAt: { lte: answer.createdAt },
        ...(question ? { id: { notIn: [question.id, answer.id] } } : {}),
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const questions = new Map(rows.filter((r) => r.kind === "question").map((r) => [r.id, r]));
    if (question) questions.set(question.id, question);
    const q = questions.get(answer.questionId!);
    if (!q) throw new Error(`answer ${answer.uid} has no question`);
    const turns = rows
      .filter((r) => r.kind === "answer" && r.status === "done" && r.questionId && questions.has(r.questionId))
      .map((a) => ({
        question: questions.get(a.questionId!)!.body,
        answer: a.body,
        tools: parseDetails(a.details).toolCalls.map((t) => ({ name: t.name, input: t.input })),
      }));
    return { question: q, turns };
  }

  /** Runs one answer. `known`: handed over by the service (see the file comment); else read here. */
  async function run(answerId: string, known?: QueuedAnswer): Promise<void> {
    if (known && !known.started) await known.written.catch(() => undefined);
    if (!known?.started) {
      const claimed = await db.askMessage.updateMany({
        where: { id: answerId, status: "queued" },
        data: { status: "running" },
      });
      if (claimed.count === 0) return; // cancelled while it waited
    }
    const self = { controller: new AbortController(), interrupted: false };
    running.set(answerId, self);
    const { controller } = self;
    const details: Details = { toolCalls: [], citations: [], hits: [], notes: [] };
    let loaded: QueuedAnswer | undefined = known;
    let answer: AskMessageRow | undefined;
    let leave = () => undefined as void;
    let started: Promise<unknown> = Promise.resolve();
    /** The latest usage not yet written, and the write in flight (one at a time, the latest wins). */
    let pendingUsage: Partial<AskMessageRow> | null = null;
    let usageWrites: Promise<void> | null = null;
    const written = known?.written ?? Promise.resolve();
    const bookkeeping = known?.bookkeeping ?? (() => undefined);
    const writeUsage = (data: Partial<AskMessageRow>) => {
      pendingUsage = data;
      usageWrites ??= (async () => {
        await written;
        while (pendingUsage) {
          const next = pendingUsage;
          pendingUsage = null;
          await db.askMessage
            .update({ where: { id: answerId }, data: next })
            .catch((err: unknown) => log.warn({ err, answerId }, "an answer's usage so far was not written"));
        }
        usageWrites = null;
      })();
    };
    const finish = async (data: Partial<AskMessageRow>) => {
      bookkeeping(); // an answer that ends before asking the model still needs its rows
      pendingUsage = null;
      await usageWrites;
      await written;
      const thread = loaded!.thread;
      const [row] = await Promise.all([
        db.askMessage.update({
          where: { id: answerId },
          data: { ...data, details: JSON.stringify(details), finishedAt: new Date() },
        }),
        db.askThread.update({ where: { id: thread.id }, data: { updatedAt: new Date() } }),
      ]);
      answer = row;
      await started;
      await publishAnswer(thread, row).then(() => deps.onAnswerEnded?.(row));
    };
    try {
      // Inside the try: a read that fails here still ends the answer (failed), never "running" for ever.
      if (!loaded) {
        const read = await answerForRun(db, answerId);
        loaded = { ...read, written, started: false };
      }
      const thread = loaded.thread;
      answer = { ...loaded.answer, status: "running" };
      const current = answer;
      const room = roomOf(thread);
      const ids = { threadId: thread.uid, answerId: current.uid };
      // A claimed answer says it runs (nothing waits on the write; the bus keeps the room's order);
      // one started at once was announced running by the service.
      if (!known?.started)
        started = publishAnswer(thread, current).catch((err: unknown) =>
          log.warn({ err, answer: current.uid }, "answer event not published"),
        );
      // Everything the first model request needs, read at once.
      const [spend, llm, { question, turns }] = await Promise.all([
        deps.ledger.join(thread.workspaceId, loaded.limits),
        deps.modelFor(thread.workspaceId, loaded.connection),
        loaded.conversation ?? conversation(current, known?.question),
      ]);
      leave = spend.leave;
      // Without a model there is no request to let go first: the rows go now, beside the search.
      if (!llm) bookkeeping();
      if (spend.state?.exhausted) return await finish({ status: "failed", error: budgetRefusal(spend.state) });
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
            .catch((err: unknown) => log.warn({ err, answer: current.uid }, "answer event not published"));
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
        } else if (e.type === "usage") {
          writeUsage({
            inputTokens: e.usage.inputTokens,
            outputTokens: e.usage.outputTokens,
            costUsd: e.costUsd ?? null,
          });
          send({
            type: "ask.usage",
            payload: {
              ...ids,
              usage: e.usage,
              requests: e.requests,
              ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
            },
          });
        }
      };
      const staticFindings = async () =>
        (await db.staticFinding.findMany({ where: { snapshotId: thread.snapshotId } })) as StaticInput[];
      const out = await afterFirstRequest(bookkeeping, () =>
        answerQuestion({
          root: dirs.src,
          symbolsPath: dirs.symbols,
          staticFindings,
          searchCode: codeSearchFor(deps.config, deps.searchIndexes, searchIndexName(thread.snapshotId)),
          llm,
          question: `${history.questionPrefix}${question.body}`,
          history: history.messages,
          ...(spend.budget ? { budget: spend.budget } : {}),
          signal: controller.signal,
          onEvent,
        }),
      );
      details.citations = out.citations;
      details.hits = out.hits;
      details.notes.push(...out.notes);
      const cancelled = out.stopReason === "cancelled" || controller.signal.aborted;
      await finish({
        body: out.text || (cancelled ? streamed : ""),
        mode: out.mode,
        model: out.model,
        status: self.interrupted ? "failed" : cancelled ? "cancelled" : out.error ? "failed" : "done",
        error: self.interrupted ? INTERRUPTED_RUNNING : cancelled ? null : (out.error ?? null),
        inputTokens: out.usage.inputTokens,
        outputTokens: out.usage.outputTokens,
        costUsd: out.costUsd ?? null,
      });
    } catch (err) {
      const cancelled = controller.signal.aborted;
      const message = self.interrupted
        ? INTERRUPTED_RUNNING
        : cancelled
          ? null
          : publicError(err, { doing: "answering the question", log, context: { answerId } }).message;
      const status = self.interrupted || !cancelled ? "failed" : "cancelled";
      if (loaded)
        await finish({ status, error: message }).catch((e: unknown) =>
          log.error({ err: e, answerId }, "could not record a failed answer"),
        );
      else
        await db.askMessage
          .updateMany({ where: { id: answerId }, data: { status, error: message, finishedAt: new Date() } })
          .catch((e: unknown) => log.error({ err: e, answerId }, "could not record a failed answer"));
    } finally {
      bookkeeping(); // whatever way out: the asker's reply waits for the rows
      running.delete(answerId);
      leave();
    }
  }

  async function drainOnce(threadId: string, first?: QueuedAnswer): Promise<void> {
    if (first) await run(first.answer.id, first);
    while (!stopping) {
      const next = await db.askMessage.findFirst({
        where: { threadId, kind: "answer", status: "queued" },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      if (!next || stopping) return;
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
      await publishAnswer(thread as ThreadRow, answer);
    }
  }

  const enqueueThread = (threadId: string) =>
    shared!.queue.enqueue("ask.thread", { threadId }, { dedupeKey: `ask-${threadId}` });

  if (shared) {
    shared.signals.subscribe(CANCEL_ANSWER_SIGNAL, ({ answerId }) => {
      if (typeof answerId === "string") running.get(answerId)?.controller.abort(new Error("Cancelled by a user."));
    });
  }

  /**
   * The "ask.thread" job (registered by the composition root; enqueued only with a shared queue): a
   * worker drains the thread.
   */
  const threadJob: JobRegistration<"ask.thread"> = {
    handler: async ({ threadId }, ctx) => {
      // Tracked like a drain of this process: shutdown waits for it, then stops its answer.
      draining.set(threadId, { again: false });
      const done = (async () => {
        if (ctx.takeover) await failRunning(threadId, ANSWER_STOPPED.worker);
        await drainOnce(threadId);
      })();
      idle.set(
        threadId,
        done.catch(() => undefined),
      );
      try {
        await done;
      } finally {
        draining.delete(threadId);
        idle.delete(threadId);
      }
      // Cut short by shutdown with answers still waiting: the next worker drains the thread.
      if (stopping && (await db.askMessage.findFirst({ where: { threadId, kind: "answer", status: "queued" } })))
        await enqueueThread(threadId);
    },
    options: { concurrency: 4, abandoned: ({ threadId }) => failRunning(threadId, ANSWER_STOPPED.abandoned) },
  };

  /** Fails the answers still waiting in this process's threads, and says so in their rooms. */
  async function failQueued(): Promise<number> {
    // Queued answers on a shared queue are durable: another worker answers them.
    if (shared) return 0;
    const threadIds = [...draining.keys()];
    if (!threadIds.length) return 0;
    const queued = await db.askMessage.findMany({
      where: { threadId: { in: threadIds }, kind: "answer", status: "queued" },
      include: { thread: { include: threadInclude } },
    });
    if (!queued.length) return 0;
    const finishedAt = new Date();
    await db.askMessage.updateMany({
      where: { id: { in: queued.map((q) => q.id) }, status: "queued" },
      data: { status: "failed", error: INTERRUPTED_QUEUED, finishedAt },
    });
    await Promise.all(
      queued.map(({ thread, ...a }) =>
        publishAnswer(thread as ThreadRow, { ...a, status: "failed", error: INTERRUPTED_QUEUED, finishedAt }).catch(
          (err: unknown) => log.warn({ err, answer: a.uid }, "answer event not published"),
        ),
      ),
    );
    return queued.length;
  }

  const allIdle = async () => {
    while (idle.size) await Promise.all([...idle.values()]);
  };

  return {
    threadJob,
    /** Nothing runs or waits for this thread here: an answer asked now starts at once. */
    isIdle: (threadId: string) => !shared && !draining.has(threadId) && !stopping,

    /**
     * Starts the thread's queue unless it runs already (then it picks the new answer up after the
     * current one). `queued`: the answer just asked and its thread, when the caller has them.
     * Shutting down, nothing starts: the answer waits, and the next start fails it as interrupted.
     */
    kick(threadId: string, queued?: QueuedAnswer): void {
      if (shared) {
        // The worker claims the answer from its row: the job goes out once the rows are written.
        void (queued?.written ?? Promise.resolve())
          .then(() => enqueueThread(threadId))
          .catch((err: unknown) => log.error({ err, threadId }, "could not queue a thread's answers"));
        return;
      }
      if (stopping) return;
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
          } while (state.again && !stopping);
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
      const r = running.get(answerId);
      if (r) {
        r.controller.abort(new Error("Cancelled by a user."));
        return true;
      }
      if (!shared || status !== "running") return false;
      await shared.signals.publish(CANCEL_ANSWER_SIGNAL, { answerId });
      return true;
    },

    /** Resolves when no answer runs or waits in this process (tests). */
    idle: allIdle,

    /**
     * Shutdown: no answer starts any more; waiting ones are failed as interrupted; running ones may
     * finish within `graceMs`, then are stopped (kept as interrupted, with what they said so far).
     * Resolves when every one has been recorded.
     */
    async shutdown(graceMs = SHUTDOWN_GRACE_MS): Promise<{ interruptedQueued: number; stopped: number }> {
      stopping = true;
      const interruptedQueued = await failQueued().catch((err: unknown) => {
        log.error({ err }, "could not mark waiting answers as interrupted");
        return 0;
      });
      const finished = allIdle().then(() => true);
      if (await Promise.race([finished, sleep(graceMs).then(() => false)])) return { interruptedQueued, stopped: 0 };
      let stopped = 0;
      for (const r of running.values()) {
        r.interrupted = true;
        r.controller.abort(new Error("Argus is shutting down."));
        stopped++;
      }
      await finished;
      return { interruptedQueued, stopped };
    },
  };
}

export type AnswerRunner = ReturnType<typeof createAnswerRunner>;
