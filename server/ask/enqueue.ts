/**
 * A question and its answer, asked (service.ts): their rows built, announced in the thread's room,
 * handed to the thread's queue (runner.ts) and written — the model is asked while the rows are written.
 */
import type { Actor } from "../auth/access.ts";
import type { AskMessage as AskMessageRow, Db } from "../db/client.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { RoomName } from "../shared/rooms.ts";
import type { AskWorkspace } from "./context.ts";
import type { AnswerRunner } from "./runner.ts";
import { messageView, pickThread, roomOf, threadView, type ThreadRow } from "./views.ts";

export function createEnqueue(deps: { db: Db; events: EventBus; log: Logger; runner: AnswerRunner }) {
  const { db, events, log, runner } = deps;

  /**
   * Publishes without waiting for the write: the bus keeps a room's events in the order they were
   * published, so the answer's own events (published later, by the runner) still come after these,
   * and the model is asked without waiting on them (bench/ask.ts: question → first model request).
   */
  function announce(room: RoomName<"project">, body: RoomEventBody<"project">): void {
    events
      .publish(room, body)
      .catch((err: unknown) => log.error({ err, room }, "a conversation event was not published"));
  }

  /**
   * The question and its answer: announced, handed to the thread's queue, and written — the model is
   * asked while the rows are written (an answer whose thread has nothing running here starts at once,
   * written as running; else it waits as queued). `newThread`: the thread's row goes in the same write.
   * Resolves with the views once the rows are written.
   */
  return async function enqueue(
    t: ThreadRow,
    asker: NonNullable<Actor>,
    question: string,
    chatMessageUid: string | null,
    ws: AskWorkspace,
    newThread: { snapshotUid: string } | null,
    /** The connection the asker picked (askInput.connectionUid); undefined = the workspace's default. */
    picked?: string,
  ) {
    const now = new Date();
    const startsNow = runner.isIdle(t.id);
    const base = { threadId: t.id, workspaceId: t.workspaceId, createdAt: now, finishedAt: null };
    const q: AskMessageRow = {
      ...base,
      id: crypto.randomUUID(),
      uid: crypto.randomUUID(),
      kind: "question",
      authorId: asker.userId,
      questionId: null,
      body: question,
      status: "done",
      mode: null,
      details: null,
      model: null,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
      error: null,
      chatMessageUid,
      connectionUid: null,
    };
    const a: AskMessageRow = {
      ...q,
      id: crypto.randomUUID(),
      uid: crypto.randomUUID(),
      kind: "answer",
      authorId: null,
      questionId: q.id,
      body: "",
      status: startsNow ? "running" : "queued",
      // The answer names the chat message too: the chat shows it under that message.
      chatMessageUid,
      connectionUid: picked ?? null,
    };
    const names = new Map([[asker.userId, asker.name]]);
    const room = roomOf(t);
    const questionView = messageView(q, t.uid, names);
    const answerView = messageView(a, t.uid, names);
    const rows = [q, a].map(({ threadId: _t, ...m }) => m);
    /**
     * The announcements and the rows wait for the model request: the runner, kicked first, sends it
     * (a new thread needs nothing from the database for it), and each query here costs 1.5–2 ms of the
     * one thread (Prisma compiles every query) that the request would otherwise wait behind — ~8 ms
     * for the three events and the rows (bench/ask.ts). An answer that starts here lets them go once
     * its first request is on the network (`bookkeeping`, server/llm/request-sent.ts); one that waits
     * lets them go in the next turn. Nothing can be lost to the wait: the room's own order still holds
     * (the answer's first event needs the model's reply, and the runner's writes and end wait for
     * `written`), and the asker's reply waits for the rows.
     */
    let bookkeeping!: () => void;
    const written = new Promise<void>((resolve) => (bookkeeping = resolve)).then(() => {
      if (newThread) {
        const thread = threadView(t, newThread.snapshotUid, names);
        announce(room, { type: "ask.thread", payload: { thread } });
      }
      announce(room, { type: "ask.message", payload: { message: questionView } });
      announce(room, { type: "ask.message", payload: { message: answerView } });
      return (
        newThread
          ? db.askThread.create({ data: { ...pickThread(t), messages: { createMany: { data: rows } } } })
          : db.askMessage.createMany({ data: [q, a] })
      ).then(() => undefined);
    });
    if (!startsNow) setImmediate(bookkeeping);
    runner.kick(t.id, {
      answer: a,
      thread: t,
      limits: ws.limits,
      connection: ws.connection,
      written,
      bookkeeping,
      started: startsNow,
      question: q,
      // A new thread's conversation is this question alone; a follow-up's is read by the runner.
      ...(newThread ? { conversation: { question: q, turns: [] } } : {}),
    });
    await written;
    return { question: questionView, answer: answerView };
  };
}

export type Enqueue = ReturnType<typeof createEnqueue>;
