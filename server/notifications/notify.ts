/**
 * Writing notifications where things happen: the room chat calls `chatMessage` (mentions; replies in
 * a finding's thread, for the people who wrote in it before), the review job calls `reviewEnded` (for
 * the person who started the review). The rules every notification follows, whoever asks:
 * - only for a current member of the workspace the thing happened in (never across workspaces);
 * - never for the person who did it;
 * - at most one per user, kind and subject (a message edited twice mentions nobody twice; the unique
 *   index holds it across processes).
 * Each notification written goes to `onCreated` listeners (server/realtime pushes it to the user's
 * sockets). Failures are logged, never thrown: a lost notification must not fail the chat message.
 */
import type { Db } from "../db/client.ts";
import { isUniqueViolation } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import { mentionsAsPlainText } from "../shared/mentions.ts";
import type { NotificationKind, NotificationPush } from "../shared/notifications.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import type { Inbox } from "./inbox.ts";
import { messageLink, reviewLink } from "./links.ts";

/** Characters of a message quoted in its notification. */
const EXCERPT = 140;

interface Draft {
  userId: string;
  kind: NotificationKind;
  actorId: string | null;
  text: string;
  link: string;
  subject: string;
}

export type NotificationListener = (userId: string, push: NotificationPush) => void | Promise<void>;

export interface ChatNotice {
  room: { name: RoomName; workspaceId: string };
  message: { id: string; thread: string | null; authorId: string; body: string };
  author: { name: string };
  /** The seq of the room event that carried this version of the message. */
  seq: number;
  /** The members the message mentions (already checked against the workspace by the chat). */
  mentioned: string[];
  /** A new message (not an edit): only then do thread participants hear of it. */
  isNew: boolean;
}

export function excerpt(body: string): string {
  const flat = mentionsAsPlainText(body).replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length > EXCERPT ? `${chars.slice(0, EXCERPT - 1).join("")}…` : flat;
}

export function createNotifier(deps: { db: Db; log: Logger; inbox: Inbox }) {
  const { db, log, inbox } = deps;
  const listeners = new Set<NotificationListener>();

  /** Writes the drafts that pass the rules (file comment) and tells the listeners. */
  async function deliver(workspaceId: string, drafts: Draft[]): Promise<number> {
    const wanted = drafts.filter((d) => d.userId !== d.actorId);
    if (!wanted.length) return 0;
    const members = new Set(
      (
        await db.membership.findMany({
          where: { workspaceId, userId: { in: [...new Set(wanted.map((d) => d.userId))] } },
          select: { userId: true },
        })
      ).map((m) => m.userId),
    );
    const written: { userId: string; uid: string }[] = [];
    for (const d of wanted) {
      if (!members.has(d.userId)) continue;
      const uid = crypto.randomUUID();
      try {
        await db.notification.create({ data: { ...d, uid, workspaceId } });
        written.push({ userId: d.userId, uid });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err; // else: this user already has it
      }
    }
    if (!written.length) return 0;
    const views = new Map((await inbox.view(written.map((w) => w.uid))).map((v) => [v.id, v]));
    for (const w of written) {
      const notification = views.get(w.uid);
      if (!notification) continue;
      const push = { notification, unread: await inbox.unread(w.userId) };
      for (const listener of listeners) {
        try {
          await listener(w.userId, push);
        } catch (err) {
          log.error({ err }, "a notification listener failed");
        }
      }
    }
    return written.length;
  }

  /** Where a message was written, in words: "the review of shop" / "the thread on “SQL injection” in …". */
  async function placeOf(room: RoomName, thread: string | null): Promise<string> {
    const parsed = parseRoom(room);
    if (parsed?.kind === "review") {
      const review = await db.review.findUnique({
        where: { uid: parsed.uid },
        select: { id: true, project: { select: { name: true } } },
      });
      const where = `the review of ${review?.project.name ?? "a project"}`;
      if (thread === null || !review) return where;
      const finding = await db.reviewFinding.findFirst({
        where: { reviewId: review.id, fingerprint: thread },
        select: { title: true },
      });
      return `the thread on “${finding?.title ?? "a finding"}” in ${where}`;
    }
    if (parsed?.kind === "project") {
      const p = await db.project.findUnique({ where: { uid: parsed.uid }, select: { name: true } });
      return `the project ${p?.name ?? ""}`.trim();
    }
    if (parsed?.kind === "kb") {
      const kb = await db.knowledgeBase.findUnique({ where: { uid: parsed.uid }, select: { name: true } });
      return `the knowledge base ${kb?.name ?? ""}`.trim();
    }
    return "a pipeline run";
  }

  async function safely(what: string, work: () => Promise<number>): Promise<number> {
    try {
      return await work();
    } catch (err) {
      log.error({ err }, `notifications for ${what} were not written`);
      return 0;
    }
  }

  return {
    /** Registers a listener for every notification written; returns the unsubscribe function. */
    onCreated(listener: NotificationListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** A chat message was written or edited. Resolves with how many notifications were written. */
    chatMessage(notice: ChatNotice): Promise<number> {
      return safely("a chat message", async () => {
        const { room, message, author, seq } = notice;
        const mentioned = new Set(notice.mentioned);
        // Thread participants: everyone who wrote in this thread before this message.
        const earlier =
          notice.isNew && message.thread !== null
            ? await db.roomMessage.findMany({
                where: { room: room.name, thread: message.thread, uid: { not: message.id } },
                select: { authorId: true },
                distinct: ["authorId"],
              })
            : [];
        const repliedTo = earlier.map((m) => m.authorId).filter((id) => !mentioned.has(id));
        if (!mentioned.size && !repliedTo.length) return 0;
        const place = await placeOf(room.name, message.thread);
        const link = messageLink(room.name, message, seq);
        const quote = excerpt(message.body);
        const base = { actorId: message.authorId, link, subject: `message:${message.id}` };
        return deliver(room.workspaceId, [
          ...[...mentioned].map((userId) => ({
            ...base,
            userId,
            kind: "mention" as const,
            text: `${author.name} mentioned you in ${place}: ${quote}`,
          })),
          ...repliedTo.map((userId) => ({
            ...base,
            userId,
            kind: "thread_reply" as const,
            text: `${author.name} replied in ${place}: ${quote}`,
          })),
        ]);
      });
    },

    /** A review ended: its starter hears whether it finished or failed (a cancel tells nobody). */
    reviewEnded(
      review: { uid: string; workspaceId: string; createdById: string | null; projectId: string },
      outcome: { status: "completed"; findings: number } | { status: "failed"; reason: string },
      seq: number,
    ): Promise<number> {
      return safely("a review's end", async () => {
        if (!review.createdById) return 0; // started from the command line: nobody to tell
        const project = await db.project.findUnique({ where: { id: review.projectId }, select: { name: true } });
        const name = project?.name ?? "a project";
        const completed = outcome.status === "completed";
        return deliver(review.workspaceId, [
          {
            userId: review.createdById,
            kind: completed ? "review_finished" : "review_failed",
            actorId: null,
            link: reviewLink(review.uid, seq),
            subject: `review:${review.uid}`,
            text: completed
              ? `Your review of ${name} finished: ${outcome.findings} ${outcome.findings === 1 ? "finding" : "findings"}.`
              : `Your review of ${name} failed: ${excerpt(outcome.reason)}`,
          },
        ]);
      });
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
