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
import { workspaceChatModel } from "../providers/workspace-model.ts";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import { roleAtLeast } from "../auth/roles.ts";
import type { Config } from "../config.ts";
import type { Db, Project, Review } from "../db/client.ts";
import { conflict, invalid, notFound } from "../errors.ts";
import type { EventBus, RoomEventBody } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { ProviderService } from "../providers/service.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { AuthorizedRoom } from "../rooms/access.ts";
import {
  askBudgetSchema,
  isAnswerActive,
  mentionedQuestion,
  questionSchema,
  type AnswerStatus,
  type AskThread,
} from "../shared/ask.ts";
import { mentionsAsPlainText } from "../shared/mentions.ts";
import type { ChatMessage } from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { publicError } from "../errors-public.ts";
import { budgetState, requireBudget, type BudgetState } from "./budget.ts";
import { createAnswerFindings } from "./findings.ts";
import { findingContext } from "./prompt.ts";
import { createAnswerRunner } from "./runner.ts";
import {
  messageView,
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
}

export function createAskService(deps: AskServiceDeps) {
  const { db, events, log } = deps;

  /** The model a workspace's answers use; null when there is none — answers are then search results. */
  const chatModel = (workspaceId: string) => workspaceChatModel(db, deps.providers, workspaceId);

  const runner = createAnswerRunner({ ...deps, chatModel });

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

  async function loadReview(actor: Actor, reviewUid: string, role: "viewer" | "member"): Promise<Review> {
    const r = await db.review.findUnique({ where: { uid: reviewUid } });
    if (!r) throw notFound(`No review with id ${reviewUid}. It may have been deleted.`);
    await requireRole(db, actor, r.workspaceId, role);
    return r;
  }

  /** A new thread's rows: project or review, its snapshot, the finding as context. */
  async function newThread(
    userId: string,
    target: { project: Project } | { review: Review; fingerprint?: string },
    question: string,
  ): Promise<{ row: ThreadRow; snapshotUid: string }> {
    let project: Project;
    let snapshotId: string;
    let review: Review | null = null;
    let context: string | null = null;
    let fingerprint: string | null = null;
    if ("project" in target) {
      project = target.project;
      if (!project.currentSnapshotId)
        throw invalid("This project has no imported code yet: import it first, then ask about it.");
      snapshotId = project.currentSnapshotId;
    } else {
      review = target.review;
      project = await db.project.findUniqueOrThrow({ where: { id: review.projectId } });
      snapshotId = review.snapshotId;
      if (target.fingerprint) {
        const f = await db.reviewFinding.findUnique({
          where: { reviewId_fingerprint: { reviewId: review.id, fingerprint: target.fingerprint } },
        });
        if (!f) throw notFound("That finding is not part of this review.");
        context = findingContext(f);
        fingerprint = f.fingerprint;
      }
    }
    const snapshot = await db.snapshot.findUnique({ where: { id: snapshotId } });
    if (!snapshot || snapshot.status !== "ready")
      throw invalid("The code this would be asked about is not imported (or its import failed); import it again.");
    const t = await db.askThread.create({
      data: {
        uid: crypto.randomUUID(),
        workspaceId: project.workspaceId,
        projectId: project.id,
        reviewId: review?.id ?? null,
        fingerprint,
        snapshotId,
        title: titleOf(question),
        context,
        createdById: userId,
      },
    });
    // The uids the thread's views name are the rows read above (no read back).
    const row: ThreadRow = { ...t, project: { uid: project.uid }, review: review ? { uid: review.uid } : null };
    return { row, snapshotUid: snapshot.uid };
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

  /** A new thread, as everyone in its room sees it; its creator is the one asking. */
  function announceThread(t: { row: ThreadRow; snapshotUid: string }, creator: NonNullable<Actor>): AskThread {
    const thread = threadView(t.row, t.snapshotUid, new Map([[creator.userId, creator.name]]));
    announce(roomOf(t.row), { type: "ask.thread", payload: { thread } });
    return thread;
  }

  /** The question and its (queued) answer, announced; the thread's queue picks the answer up at once. */
  async function enqueue(
    t: ThreadRow,
    asker: NonNullable<Actor>,
    question: string,
    chatMessageUid: string | null,
    budget: BudgetState,
    isNew: boolean,
  ) {
    const userId = asker.userId;
    // One statement writes both (atomic without a transaction): the answer names its question's id.
    const questionId = crypto.randomUUID();
    const rows = await db.askMessage.createManyAndReturn({
      data: [
        {
          id: questionId,
          uid: crypto.randomUUID(),
          threadId: t.id,
          workspaceId: t.workspaceId,
          kind: "question",
          authorId: userId,
          body: question,
          chatMessageUid,
        },
        {
          uid: crypto.randomUUID(),
          threadId: t.id,
          workspaceId: t.workspaceId,
          kind: "answer",
          questionId,
          body: "",
          status: "queued",
        },
      ],
    });
    const q = rows.find((r) => r.kind === "question")!;
    const a = rows.find((r) => r.kind === "answer")!;
    const names = new Map([[userId, asker.name]]);
    const room = roomOf(t);
    const question_ = messageView(q, t.uid, names);
    const answer = messageView(a, t.uid, names);
    announce(room, { type: "ask.message", payload: { message: question_ } });
    announce(room, { type: "ask.message", payload: { message: answer } });
    // A new thread's conversation is this question alone; a follow-up's is read by the runner.
    runner.kick(t.id, { answer: a, thread: t, budget, ...(isNew ? { conversation: { question: q, turns: [] } } : {}) });
    return { question: question_, answer };
  }

  async function ask(actor: Actor, input: z.infer<typeof askInput>) {
    const user = requireUser(actor);
    if (input.threadUid) {
      const thread = await loadThread(actor, input.threadUid, "member");
      const budget = await requireBudget(db, thread.workspaceId);
      const { question, answer } = await enqueue(thread, user, input.question, null, budget, false);
      // The answer is on its way; what the reply says of the thread is read meanwhile.
      const [names, snaps] = await Promise.all([
        userNames(db, [thread.createdById]),
        snapshotUids(db, [thread.snapshotId]),
      ]);
      return { thread: threadView(thread, snaps.get(thread.snapshotId) ?? "", names), question, answer };
    }
    let created: { row: ThreadRow; snapshotUid: string };
    let budget: BudgetState;
    if (input.reviewUid) {
      const review = await loadReview(actor, input.reviewUid, "member");
      budget = await requireBudget(db, review.workspaceId);
      created = await newThread(user.userId, { review, fingerprint: input.fingerprint }, input.question);
    } else {
      const project = await loadProject(actor, input.projectUid!, "member");
      budget = await requireBudget(db, project.workspaceId);
      created = await newThread(user.userId, { project }, input.question);
    }
    const thread = announceThread(created, user);
    const { question, answer } = await enqueue(created.row, user, input.question, null, budget, true);
    return { thread, question, answer };
  }

  return {
    ask,
    chatModel,
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
      if (runner.abort(a.id)) return { status: "cancelling" as const };
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
        const budget = await requireBudget(db, room.workspaceId);
        let thread: { row: ThreadRow; snapshotUid: string };
        if (parsed.kind === "project") {
          const project = await db.project.findUniqueOrThrow({ where: { uid: parsed.uid } });
          thread = await newThread(actor.userId, { project }, question);
        } else {
          const review = await db.review.findUniqueOrThrow({ where: { uid: parsed.uid } });
          thread = await newThread(
            actor.userId,
            { review, ...(message.thread ? { fingerprint: message.thread } : {}) },
            question,
          );
        }
        announceThread(thread, actor);
        await enqueue(thread.row, actor, question, message.id, budget, true);
      } catch (err) {
        await refuse(publicError(err, { doing: "asking Argus", log, context: { room: room.name } }).message).catch(
          (e: unknown) => log.error({ err: e }, "could not say why Argus did not answer"),
        );
      }
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

    /** Resolves when no answer runs or waits (tests, shutdown). */
    idle: () => runner.idle(),
  };
}

export type AskService = ReturnType<typeof createAskService>;
