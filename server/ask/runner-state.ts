/**
 * What the answer runner's parts share (runner.ts): what the service hands an answer over with, the
 * runner's dependencies, this process's threads and answers in memory, and the words an answer that
 * was stopped early ends with.
 */
import type { Config } from "../config.ts";
import type { Db, AskMessage as AskMessageRow, ProviderConnection } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { AskBudget } from "../shared/ask.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import type { PastTurn } from "./history.ts";
import type { SpendLedger } from "./spend.ts";
import type { ThreadRow } from "./views.ts";
import type { JobQueue } from "../jobs/queue.ts";
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

/** This process's threads and answers (one process: the queue and the cancel switches are in memory). */
export interface RunnerState {
  /** Threads with a drain running; `again`: an answer was queued meanwhile. */
  draining: Map<string, { again: boolean }>;
  /** Running answers by id: their cancel switch, and whether shutdown stopped them. */
  running: Map<string, { controller: AbortController; interrupted: boolean }>;
  /** Settles when a thread's drain ends (tests and shutdown wait on it). */
  idle: Map<string, Promise<void>>;
  /** Shutdown began: no answer starts any more. */
  stopping: boolean;
}

/** Says an answer as it is now in its thread's room (`ask.message`). */
export type PublishAnswer = (thread: ThreadRow, m: AskMessageRow) => Promise<unknown>;
