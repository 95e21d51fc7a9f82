/**
 * The ways a question is asked (service.ts): in a thread or a new one (tRPC), with `@argus` in a
 * room's team chat, and from a pull request. Each checks who asks and the budget, then enqueues.
 */
import type { z } from "zod";
import { checkRole, requireUser, type Actor } from "../auth/access.ts";
import { roleAtLeast } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import { invalid } from "../errors.ts";
import { publicError } from "../errors-public.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { AuthorizedRoom } from "../rooms/access.ts";
import { mentionedQuestion, questionSchema } from "../shared/ask.ts";
import { mentionsAsPlainText } from "../shared/mentions.ts";
import type { ChatMessage } from "../shared/room-chat.ts";
import { parseRoom, type RoomName } from "../shared/rooms.ts";
import { formatZodIssues } from "../shared/zod-issues.ts";
import { pickedConnection, threadForAsk, type AskWorkspace } from "./context.ts";
import type { Enqueue } from "./enqueue.ts";
import type { askInput, ForgeQuestion } from "./inputs.ts";
import { newThread, targetFor, type SnapshotCache } from "./new-thread.ts";
import type { SpendLedger } from "./spend.ts";
import { noThread } from "./thread-reads.ts";
import { threadView, userNames } from "./views.ts";

export interface AskingDeps {
  db: Db;
  events: EventBus;
  log: Logger;
  ledger: SpendLedger;
  snapshots: SnapshotCache;
  enqueue: Enqueue;
}

export function createAsking(deps: AskingDeps) {
  const { db, events, log, ledger, snapshots, enqueue } = deps;

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
    const created = await newThread(snapshots, user.userId, target, input.question);
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
        const thread = await newThread(snapshots, actor.userId, target, question);
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
      const created = await newThread(snapshots, input.asker.id, target, checked.data);
      const asker = { userId: input.asker.id, name: input.asker.name, email: "" };
      const { answer } = await enqueue(created.row, asker, checked.data, null, ws, created);
      return { answerUid: answer.id, threadUid: created.row.uid };
    },
  };
}
