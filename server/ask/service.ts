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
import { z } from "zod";
import { checkRole, requireRole, requireUser, type Actor } from "../auth/access.ts";
import { roleAtLeast } from "../auth/roles.ts";
import type { Config } from "../config.ts";
import type {
  AskMessage as AskMessageRow,
  Db,
  Project,
  ProviderConnection,
  Review,
  ReviewFinding,
} from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { ProviderService } from "../providers/service.ts";
import { chatModelFor } from "../providers/workspace-model.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { AuthorizedRoom } from "../rooms/access.ts";
import {
  askBudgetSchema,
  isAnswerActive,
  mentionedQuestion,
  questionSchema,
  type AnswerStatus,
} from "../shared/ask.ts";
import { mentionsAsPlainText } from "../shared/mentions.ts";
import type { ChatMessage } from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { publicError } from "../errors-public.ts";
import { budgetState } from "./budget.ts";
import {
  createSnapshotCache,
  ENVIRONMENT_CONNECTION,
  pickedConnection,
  projectForAsk,
  reviewForAsk,
  threadForAsk,
  type AskWorkspace,
} from "./context.ts";
import { createAnswerFindings } from "./findings.ts";
import { findingContext } from "./prompt.ts";
import { createAnswerRunner } from "./runner.ts";
import type { JobQueue } from "../jobs/queue.ts";
import type { RedisLink } from "../cluster/redis.ts";
import type { Signals } from "../cluster/signals.ts";
import { createSpendLedger } from "./spend.ts";
import {
  messageView,
  pickThread,
  roomOf,
  snapshotUids,
  threadInclude,
  threadView,
  titleOf,
  userNames,
  type ThreadRow,
} from "./views.ts";

const uid = z.uuid();

export const askInput = z
  .object({
    question: questionSchema,
    /** A follow-up in this thread. */
    threadUid: uid.optional(),
    /** A new thread about the project's latest code … */
    projectUid: uid.optional(),
    /** … or about a review's code (its room, its snapshot) … */
    reviewUid: uid.optional(),
    /** … and one of its findings ("Ask about this finding"). */
    fingerprint: z.string().min(1).max(200).optional(),
    /** The model connection for this answer: a connection's uid, or "environment" for the server's
     * default; omitted = the workspace's default. */
    connectionUid: z.union([uid, z.literal(ENVIRONMENT_CONNECTION)]).optional(),
  })
  .refine((v) => [v.threadUid, v.projectUid, v.reviewUid].filter(Boolean).length === 1, {
    message: "name exactly one of threadUid (a follow-up), projectUid or reviewUid (a new thread)",
    path: ["threadUid"],
  })
  .refine((v) => !v.fingerprint || v.reviewUid, {
    message: "a finding (fingerprint) is asked about from its review: give reviewUid with it",
    path: ["fingerprint"],
  });

export const threadsInput = z.object({ projectUid: uid, reviewUid: uid.optional() });
export const threadInput = z.object({ threadUid: uid });
export const cancelInput = z.object({ answerUid: uid });
export const budgetInput = z.object({ workspaceId: z.string().min(1) });
export const setBudgetInput = askBudgetSchema.extend({ workspaceId: z.string().min(1) });

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

/** An `@argus` question from a pull request (server/forges/mentions.ts). */
export interface ForgeQuestion {
  /** Over a review's snapshot, in its room (and about one of its findings) … */
  reviewUid?: string;
  fingerprint?: string;
  /** … or over the project's current snapshot, in the project's room. */
  projectUid?: string;
  question: string;
  /** The forge's user (server/shared/forge-people.ts): the question's author in the room. */
  asker: { id: string; name: string };
}

type AskTarget = { project: Project } | { review: Review; project: Project; finding: ReviewFinding | null };

/**
 * What a new thread is asked over — a review (and one of its findings) or a project — with the asker's
 * side of its workspace. `role`: checked before anything about the review's findings is said.
 */
async function targetFor(
  db: Db,
  userId: string,
  where: { reviewUid?: string; fingerprint?: string; projectUid?: string },
  role: "member" | null,
): Promise<{ target: AskTarget; ws: AskWorkspace }> {
  if (where.reviewUid) {
    const found = await reviewForAsk(db, where.reviewUid, userId, where.fingerprint);
    if (!found) throw notFound(`No review with id ${where.reviewUid}. It may have been deleted.`);
    if (role) checkRole(found.ws.role, role);
    if (where.fingerprint && !found.finding) throw notFound("That finding is not part of this review.");
    return { target: found, ws: found.ws };
  }
  const found = await projectForAsk(db, where.projectUid ?? "", userId);
  if (!found) throw notFound(`No project with id ${where.projectUid}. It may have been deleted.`);
  if (role) checkRole(found.ws.role, role);
  return { target: { project: found.project }, ws: found.ws };
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

  async function loadThread(actor: Actor, threadUid: string, role: "viewer" | "member"): Promise<ThreadRow> {
    const t = await db.askThread.findUnique({ where: { uid: threadUid }, include: threadInclude });
    if (!t)
      throw notFound(`No conversation with id ${threadUid}. It may have been deleted with its project or review.`);
    await requireRole(db, actor, t.workspaceId, role);
    return t as ThreadRow;
  }

  async function loadProject(actor: Actor, projectUid: string, role: "viewer" | "member"): Promise<Project> {
    const p = await db.project.findUnique({ where: { uid: projectUid } });
    if (!p) throw notFound(`No project with id ${projectUid}. It may have been deleted.`);
    await requireRole(db, actor, p.workspaceId, role);
    return p;
  }

  const noThread = (uid: string) =>
    notFound(`No conversation with id ${uid}. It may have been deleted with its project or review.`);

  /** A new thread's row (not yet written): project or review, its snapshot, the finding as context. */
  async function newThread(
    userId: string,
    target: { project: Project } | { review: Review; project: Project; finding: ReviewFinding | null },
    question: string,
  ): Promise<{ row: ThreadRow; snapshotUid: string }> {
    const { project } = target;
    let snapshotId: string;
    let review: Review | null = null;
    let context: string | null = null;
    let fingerprint: string | null = null;
    if (!("review" in target)) {
      if (!project.currentSnapshotId)
        throw invalid("This project has no imported code yet: import it first, then ask about it.");
      snapshotId = project.currentSnapshotId;
    } else {
      review = target.review;
      snapshotId = review.snapshotId;
      if (target.finding) {
        context = findingContext(target.finding);
        fingerprint = target.finding.fingerprint;
      }
    }
    const snapshotUid = await snapshots.readyUid(snapshotId);
    const now = new Date();
    const row: ThreadRow = {
      id: crypto.randomUUID(),
      uid: crypto.randomUUID(),
      workspaceId: project.workspaceId,
      projectId: project.id,
      reviewId: review?.id ?? null,
      fingerprint,
      snapshotId,
      title: titleOf(question),
      context,
      createdById: userId,
      createdAt: now,
      updatedAt: now,
      project: { uid: project.uid },
      review: review ? { uid: review.uid } : null,
    };
    return { row, snapshotUid };
  }

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
  async function enqueue(
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
  }

  /** The workspace side with the connection the asker picked in place of the default (refused when not the workspace's). */
  async function withPicked(ws: AskWorkspace, workspaceId: string, picked: string | undefined): Promise<AskWorkspace> {
    if (picked === undefined) return ws;
    return { ...ws, connection: await pickedConnection(db, workspaceId, picked) };
  }

  async function ask(actor: Actor, input: z.infer<typeof askInput>) {
    const user = requireUser(actor);
    if (input.threadUid) {
      const found = await threadForAsk(db, input.threadUid, user.userId);
      if (!found) throw noThread(input.threadUid);
      const { thread, ws } = found;
      checkRole(ws.role, "member");
      await ledger.refuseIfSpent(thread.workspaceId, ws.limits);
      const picked = await withPicked(ws, thread.workspaceId, input.connectionUid);
      const { question, answer } = await enqueue(thread, user, input.question, null, picked, null, input.connectionUid);
      // The answer is on its way; what the reply says of the thread is read meanwhile.
      const [names, snapshotUid] = await Promise.all([
        userNames(db, [thread.createdById]),
        snapshots.readyUid(thread.snapshotId).catch(() => ""),
      ]);
      return { thread: threadView(thread, snapshotUid, names), question, answer };
    }
    const { target, ws } = await targetFor(db, user.userId, input, "member");
    await ledger.refuseIfSpent(target.project.workspaceId, ws.limits);
    const picked = await withPicked(ws, target.project.workspaceId, input.connectionUid);
    const created = await newThread(user.userId, target, input.question);
    const { question, answer } = await enqueue(
      created.row,
      user,
      input.question,
      null,
      picked,
      created,
      input.connectionUid,
    );
    const thread = threadView(created.row, created.snapshotUid, new Map([[user.userId, user.name]]));
    return { thread, question, answer };
  }

  return {
    ask,
    /** Answer → finding (findings.ts). */
    findings: createAnswerFindings(deps),

    async threads(actor: Actor, input: z.infer<typeof threadsInput>) {
      const project = await loadProject(actor, input.projectUid, "viewer");
      let reviewId: string | undefined;
      if (input.reviewUid) {
        const review = await db.review.findUnique({
          where: { uid: input.reviewUid },
          select: { id: true, projectId: true },
        });
        if (!review || review.projectId !== project.id) throw notFound("That review is not one of this project's.");
        reviewId = review.id;
      }
      const rows = (await db.askThread.findMany({
        where: { projectId: project.id, ...(reviewId ? { reviewId } : {}) },
        include: threadInclude,
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
        take: 100,
      })) as ThreadRow[];
      const [names, snaps] = await Promise.all([
        userNames(
          db,
          rows.map((t) => t.createdById),
        ),
        snapshotUids(
          db,
          rows.map((t) => t.snapshotId),
        ),
      ]);
      return rows.map((t) => threadView(t, snaps.get(t.snapshotId) ?? "", names));
    },

    async thread(actor: Actor, input: z.infer<typeof threadInput>) {
      const t = await loadThread(actor, input.threadUid, "viewer");
      const rows = await db.askMessage.findMany({
        where: { threadId: t.id },
        // A question and its answer are written in the same statement (same createdAt): question first.
        orderBy: [{ createdAt: "asc" }, { kind: "desc" }, { id: "asc" }],
        take: 500,
      });
      const [names, snaps] = await Promise.all([
        userNames(db, [t.createdById, ...rows.map((m) => m.authorId)]),
        snapshotUids(db, [t.snapshotId]),
      ]);
      return {
        thread: threadView(t, snaps.get(t.snapshotId) ?? "", names),
        messages: rows.map((m) => messageView(m, t.uid, names)),
      };
    },

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

    /**
     * The team chat's hook (server/rooms/chat.ts): a message with `@argus …` in a project or review
     * room asks Argus in a new thread of that room (a finding's thread: about that finding). What
     * Argus does not take up (a viewer asked, the budget is spent, the question is empty or too
     * long) is said in the room as `ask.refused`; the chat message itself stands either way.
     */
    async fromChat(actor: NonNullable<Actor>, room: AuthorizedRoom, message: ChatMessage): Promise<void> {
      // The stored body carries member mentions as tokens; the model and the thread title get names.
      const question = mentionedQuestion(mentionsAsPlainText(message.body));
      const parsed = parseRoom(room.name);
      if (question === null || (parsed?.kind !== "project" && parsed?.kind !== "review")) return;
      const refuse = (reason: string) =>
        events.publish(room.name as RoomName<"project">, {
          type: "ask.refused",
          payload: { chatMessageId: message.id, by: message.author, reason },
        });
      try {
        if (room.role === "spectator" || !roleAtLeast(room.role, "member"))
          return void (await refuse(
            "Only members and owners can ask Argus (an answer spends the workspace's model budget); viewers watch.",
          ));
        const checked = questionSchema.safeParse(question);
        if (!checked.success)
          return void (await refuse(`Argus did not answer: ${formatZodIssues(checked.error, { separator: "; " })}.`));
        const { target, ws } = await targetFor(
          db,
          actor.userId,
          parsed.kind === "project"
            ? { projectUid: parsed.uid }
            : { reviewUid: parsed.uid, fingerprint: message.thread ?? undefined },
          null,
        );
        // The room authorized the actor's role already (above); the workspace part is read with the project.
        await ledger.refuseIfSpent(room.workspaceId, ws.limits);
        const thread = await newThread(actor.userId, target, question);
        await enqueue(thread.row, actor, question, message.id, ws, thread);
      } catch (err) {
        await refuse(publicError(err, { doing: "asking Argus", log, context: { room: room.name } }).message).catch(
          (e: unknown) => log.error({ err: e }, "could not say why Argus did not answer"),
        );
      }
    },

    /**
     * A pull request's `@argus` question, asked as the forge's user: the installation's workspace
     * connected the repository, so there is no membership to check — the workspace's budget still
     * applies. Resolves with the answer's uid once its rows are written; the answer streams in the room.
     */
    async fromForge(input: ForgeQuestion): Promise<{ answerUid: string; threadUid: string }> {
      const checked = questionSchema.safeParse(input.question);
      if (!checked.success)
        throw invalid(`Argus did not answer: ${formatZodIssues(checked.error, { separator: "; " })}.`);
      const { target, ws } = await targetFor(db, input.asker.id, input, null);
      await ledger.refuseIfSpent(target.project.workspaceId, ws.limits);
      const created = await newThread(input.asker.id, target, checked.data);
      const asker = { userId: input.asker.id, name: input.asker.name, email: "" };
      const { answer } = await enqueue(created.row, asker, checked.data, null, ws, created);
      return { answerUid: answer.id, threadUid: created.row.uid };
    },

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
