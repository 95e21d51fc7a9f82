/** What an answer is asked with (runner.ts): its question and the thread's earlier answered turns. */
import type { Db, AskMessage as AskMessageRow } from "../db/client.ts";
import type { PastTurn } from "./history.ts";
import { parseDetails } from "./views.ts";

/**
 * The answer's question and the thread's earlier answered turns, oldest first, in one read (answers
 * run in order: every done one is earlier than this answer). The question may still be being
 * written: it is taken from memory when given.
 */
export async function readConversation(
  db: Db,
  answer: AskMessageRow,
  question?: AskMessageRow,
): Promise<{ question: AskMessageRow; turns: PastTurn[] }> {
  const rows = await db.askMessage.findMany({
    where: {
      threadId: answer.threadId,
      createdAt: { lte: answer.createdAt },
      ...(question ? { id: { notIn: [question.id, answer.id] } } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const questions = new Map(rows.filter((r) => r.kind === "question").map((r) => [r.id, r]));
  if (question) questions.set(question.id, question);
  const q = questions.get(answer.questionId!);
  if (!q) throw new Error(`answer ${answer.uid} has no question`);
  const turns = rows
    .filter((r) => r.kind === "answer" && r.status === "done" && r.questionId && questions.has(r.questionId))
    .map((a) => ({
      question: questions.get(a.questionId!)!.body,
      answer: a.body,
      tools: parseDetails(a.details).toolCalls.map((t) => ({ name: t.name, input: t.input })),
    }));
  return { question: q, turns };
}
