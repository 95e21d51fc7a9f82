/**
 * With a shared queue (runner.ts): the "ask.thread" job a worker drains a thread with, and the
 * thread's answers a stopped worker left running, failed with the reason.
 */
import type { Db } from "../db/client.ts";
import type { JobRegistration } from "../jobs/registry.ts";
import { ANSWER_STOPPED, type PublishAnswer, type RunnerState } from "./runner-state.ts";
import { threadInclude, type ThreadRow } from "./views.ts";

export interface ThreadJobDeps {
  db: Db;
  state: RunnerState;
  publishAnswer: PublishAnswer;
  /** Runs the thread's waiting answers in order, until none waits or shutdown began. */
  drainOnce: (threadId: string) => Promise<void>;
  /** Hands the thread to the next worker. */
  enqueueThread: (threadId: string) => Promise<unknown>;
}

export function createThreadJob({ db, state, publishAnswer, drainOnce, enqueueThread }: ThreadJobDeps) {
  const { draining, idle } = state;

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
      if (state.stopping && (await db.askMessage.findFirst({ where: { threadId, kind: "answer", status: "queued" } })))
        await enqueueThread(threadId);
    },
    options: { concurrency: 4, abandoned: ({ threadId }) => failRunning(threadId, ANSWER_STOPPED.abandoned) },
  };
  return threadJob;
}
