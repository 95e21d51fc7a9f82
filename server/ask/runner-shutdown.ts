/**
 * The runner's shutdown (runner.ts): no answer starts any more, waiting ones are failed as
 * interrupted, running ones get a bounded time to finish, then are stopped and kept as interrupted.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { INTERRUPTED_QUEUED, SHUTDOWN_GRACE_MS, type PublishAnswer, type RunnerState } from "./runner-state.ts";
import { threadInclude, type ThreadRow } from "./views.ts";

export interface ShutdownDeps {
  db: Db;
  log: Logger;
  state: RunnerState;
  publishAnswer: PublishAnswer;
  /** Answers wait on a shared queue (durable): another worker answers them. */
  shared: boolean;
  /** Resolves when no answer runs or waits in this process. */
  allIdle: () => Promise<void>;
}

const sleep = (ms: number) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    t.unref?.();
  });

export function createShutdown({ db, log, state, publishAnswer, shared, allIdle }: ShutdownDeps) {
  const { draining, running } = state;

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

  /**
   * Shutdown: no answer starts any more; waiting ones are failed as interrupted; running ones may
   * finish within `graceMs`, then are stopped (kept as interrupted, with what they said so far).
   * Resolves when every one has been recorded.
   */
  return async function shutdown(graceMs = SHUTDOWN_GRACE_MS): Promise<{ interruptedQueued: number; stopped: number }> {
    state.stopping = true;
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
  };
}
