/**
 * Runs one answer (runner.ts): claims it (unless it was started at once), asks the model over the
 * thread's snapshot with the conversation so far, streams it into the room, and ends it — done,
 * cancelled or failed, in words — as one `ask.message`. Whatever way out, its rows are let go and it
 * leaves the workspace's shared budget.
 */
import type { AskMessage as AskMessageRow } from "../db/client.ts";
import { publicError } from "../errors-public.ts";
import { codeSearchFor, type StaticInput } from "../agent/index.ts";
import { searchIndexName, snapshotDirs } from "../snapshots/storage.ts";
import { afterFirstRequest } from "../llm/index.ts";
import { answerQuestion } from "./answer.ts";
import { answerStream } from "./answer-events.ts";
import { budgetRefusal } from "./budget.ts";
import { answerForRun } from "./context.ts";
import { readConversation } from "./conversation.ts";
import { buildHistory, historyBudget } from "./history.ts";
import {
  INTERRUPTED_RUNNING,
  type PublishAnswer,
  type QueuedAnswer,
  type RunnerDeps,
  type RunnerState,
} from "./runner-state.ts";
import { usageWriter } from "./usage-writes.ts";
import { roomOf, type Details } from "./views.ts";

export function createRunAnswer(deps: RunnerDeps, state: RunnerState, publishAnswer: PublishAnswer) {
  const { db, events, log } = deps;
  const { running } = state;

  /** Runs one answer. `known`: handed over by the service (see runner.ts); else read here. */
  return async function run(answerId: string, known?: QueuedAnswer): Promise<void> {
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
    const written = known?.written ?? Promise.resolve();
    const bookkeeping = known?.bookkeeping ?? (() => undefined);
    const usage = usageWriter(db, log, answerId, written);
    const finish = async (data: Partial<AskMessageRow>) => {
      bookkeeping(); // an answer that ends before asking the model still needs its rows
      await usage.settle();
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
        loaded.conversation ?? readConversation(db, current, known?.question),
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
      const stream = answerStream({ events, log, room, ids, details, writeUsage: usage.write });
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
          onEvent: stream.onEvent,
        }),
      );
      details.citations = out.citations;
      details.hits = out.hits;
      details.notes.push(...out.notes);
      const cancelled = out.stopReason === "cancelled" || controller.signal.aborted;
      await finish({
        body: out.text || (cancelled ? stream.streamed() : ""),
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
  };
}
