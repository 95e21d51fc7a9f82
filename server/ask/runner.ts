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
import { createRunAnswer } from "./run-answer.ts";
import {
  CANCEL_ANSWER_SIGNAL,
  type PublishAnswer,
  type QueuedAnswer,
  type RunnerDeps,
  type RunnerState,
} from "./runner-state.ts";
import { createShutdown } from "./runner-shutdown.ts";
import { createThreadJob } from "./thread-job.ts";
import { messageView, roomOf } from "./views.ts";

export {
  ANSWER_STOPPED,
  CANCEL_ANSWER_SIGNAL,
  INTERRUPTED_QUEUED,
  INTERRUPTED_RUNNING,
  SHUTDOWN_GRACE_MS,
  type QueuedAnswer,
  type RunnerDeps,
} from "./runner-state.ts";

export function createAnswerRunner(deps: RunnerDeps) {
  const { db, events, log } = deps;
  /** This process's threads and answers (runner-state.ts). */
  const state: RunnerState = { draining: new Map(), running: new Map(), idle: new Map(), stopping: false };
  const { draining, running, idle } = state;

  /** Answers have no author, so their view needs no names. */
  const publishAnswer: PublishAnswer = (thread, m) =>
    events.publish(roomOf(thread), {
      type: "ask.message",
      payload: { message: messageView(m, thread.uid, new Map()) },
    });

  /** Runs one answer (run-answer.ts). */
  const run = createRunAnswer(deps, state, publishAnswer);

  async function drainOnce(threadId: string, first?: QueuedAnswer): Promise<void> {
    if (first) await run(first.answer.id, first);
    while (!state.stopping) {
      const next = await db.askMessage.findFirst({
        where: { threadId, kind: "answer", status: "queued" },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      if (!next || state.stopping) return;
      await run(next.id);
    }
  }

  const shared = deps.queue?.durable && deps.signals ? { queue: deps.queue, signals: deps.signals } : undefined;

  const enqueueThread = (threadId: string) =>
    shared!.queue.enqueue("ask.thread", { threadId }, { dedupeKey: `ask-${threadId}` });

  if (shared) {
    shared.signals.subscribe(CANCEL_ANSWER_SIGNAL, ({ answerId }) => {
      if (typeof answerId === "string") running.get(answerId)?.controller.abort(new Error("Cancelled by a user."));
    });
  }

  /** The "ask.thread" job: a worker drains the thread (thread-job.ts). */
  const threadJob = createThreadJob({ db, state, publishAnswer, drainOnce, enqueueThread });

  const allIdle = async () => {
    while (idle.size) await Promise.all([...idle.values()]);
  };

  /** Shutdown (runner-shutdown.ts). */
  const shutdown = createShutdown({ db, log, state, publishAnswer, shared: shared !== undefined, allIdle });

  return {
    threadJob,
    /** Nothing runs or waits for this thread here: an answer asked now starts at once. */
    isIdle: (threadId: string) => !shared && !draining.has(threadId) && !state.stopping,

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
      if (state.stopping) return;
      const d = draining.get(threadId);
      if (d) {
        d.again = true;
        return;
      }
      const drain = { again: false };
      draining.set(threadId, drain);
      const done = (async () => {
        try {
          let first = queued;
          do {
            drain.again = false;
            await drainOnce(threadId, first);
            first = undefined;
          } while (drain.again && !state.stopping);
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
    shutdown,
  };
}

export type AnswerRunner = ReturnType<typeof createAnswerRunner>;
