/**
 * Ask Argus: a team's conversations with the agent about a project's code. A thread belongs to a
 * project (and, when it was asked from there, to a review and one of its findings); its questions
 * and answers are rows on the server and, while an answer is written, events of the room it streams
 * into (the project's, or the review's). This file holds what the server and the browser both need:
 * the question's limits, the views every watcher gets, and the room events' payloads.
 */
import { z } from "zod";
import { ARGUS_MENTION } from "./mentions.ts";
import { parseRoom } from "./rooms.ts";
import { sizedTextSchema } from "./text-size.ts";
import { matchLabelSchema } from "./search-match.ts";
import { usageSchema } from "./usage.ts";

/** The address fragment that opens a thread in the Ask Argus panel: `#ask-thread-<threadId>`. */
export const ASK_THREAD_HASH = "ask-thread-";

/** A question's text, in UTF-8 bytes. */
export const ASK_MAX_BYTES = 8 * 1024;
/** How the team chat calls Argus: `@argus` at the start of a word, anywhere in the message. */
export const ASK_MENTION = ARGUS_MENTION;
/** Rooms whose team chat takes `@argus …` questions: a project's and a review's. */
export const roomTakesQuestions = (room: string): boolean => {
  const kind = parseRoom(room)?.kind;
  return kind === "project" || kind === "review";
};

export const questionSchema = sizedTextSchema({
  maxBytes: ASK_MAX_BYTES,
  empty: "a question needs some text: ask what you want to know about the code",
  what: "a question",
  advice: "ask about less at once, or point at the files instead of pasting them",
});

/** Where an answer stands. queued: another answer of the thread runs first. */
export const ANSWER_STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;
export const answerStatusSchema = z.enum(ANSWER_STATUSES);
export type AnswerStatus = z.infer<typeof answerStatusSchema>;
export const isAnswerActive = (s: AnswerStatus) => s === "queued" || s === "running";

/**
 * A `path:line-line` the answer cites, checked against the snapshot the thread answers over:
 * ok, missing_file (no such file in the snapshot) or missing_lines (the file is shorter).
 */
export const citationSchema = z.object({
  path: z.string(),
  line: z.number().int().positive(),
  endLine: z.number().int().positive(),
  status: z.enum(["ok", "missing_file", "missing_lines"]),
  /** The file's line count when it exists. */
  fileLines: z.number().int().nonnegative().optional(),
});
export type Citation = z.infer<typeof citationSchema>;

/** A code-search hit of an answer given without a model. */
export const searchHitSchema = z.object({
  file: z.string(),
  startLine: z.number().int().positive(),
  endLine: z.number().int().positive(),
  snippet: z.string(),
  snippetStartLine: z.number().int().positive(),
  score: z.number(),
  symbolPath: z.string().optional(),
  /** How well it matches (server/shared/search-match.ts); absent on answers stored before labels. */
  relevance: z.number().optional(),
  match: matchLabelSchema.optional(),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

/** A tool call of an answer: its arguments, then (once run) a bounded preview of its result. */
export const askToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  result: z
    .object({
      isError: z.boolean(),
      preview: z.string(),
      chars: z.number().int().nonnegative(),
      durationMs: z.number().nonnegative(),
    })
    .optional(),
});
export type AskToolCall = z.infer<typeof askToolCallSchema>;

const person = z.object({ id: z.string(), name: z.string() });

export const askMessageSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  kind: z.enum(["question", "answer"]),
  /** Who asked (a question); null for Argus's answers. */
  author: person.nullable(),
  /** The question, or the answer's Markdown so far. */
  body: z.string(),
  /** An answer's state; questions are always done. */
  status: answerStatusSchema,
  /** model: the agent answered; search: no model is configured, so the best code-search hits. */
  mode: z.enum(["model", "search"]).nullable(),
  toolCalls: z.array(askToolCallSchema),
  citations: z.array(citationSchema),
  hits: z.array(searchHitSchema),
  usage: usageSchema.nullable(),
  costUsd: z.number().nonnegative().nullable(),
  /** "<provider> / <model>" of a model answer. */
  model: z.string().nullable(),
  /** Why it failed, in words (a provider's 401 or 429, the budget …); the thread stays usable. */
  error: z.string().nullable(),
  notes: z.array(z.string()),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /**
   * The team-chat message that asked (`@argus …`), on its question and its answer: the chat shows the
   * answer under it. Absent on events stored before it existed.
   */
  chatMessageId: z.string().nullable().optional(),
});
export type AskMessage = z.infer<typeof askMessageSchema>;

export const askThreadSchema = z.object({
  id: z.string(),
  projectUid: z.string(),
  reviewUid: z.string().nullable(),
  /** The finding the thread was started from ("Ask about this finding"). */
  fingerprint: z.string().nullable(),
  snapshotUid: z.string(),
  title: z.string(),
  /** The room its answers stream into. */
  room: z.string(),
  createdBy: person,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AskThread = z.infer<typeof askThreadSchema>;

const ids = { threadId: z.string(), answerId: z.string() };

/** Room events of a conversation (project and review rooms carry them). */
export const askPayloads = {
  /** A thread as it now is (created, or renamed by its first question). */
  "ask.thread": z.object({ thread: askThreadSchema }),
  /** A question, or an answer as it now is (queued, running, then done / failed / cancelled). */
  "ask.message": z.object({ message: askMessageSchema }),
  /** A text delta of a running answer (coalesced by the bus like the agent's tokens). */
  "ask.token": z.object({ ...ids, text: z.string() }),
  "ask.tool_call": z.object({
    ...ids,
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  "ask.tool_result": z.object({
    ...ids,
    id: z.string(),
    name: z.string(),
    isError: z.boolean(),
    preview: z.string(),
    chars: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
  }),
  /** The answer's cost so far, after each model request. */
  "ask.usage": z.object({
    ...ids,
    usage: usageSchema,
    costUsd: z.number().nonnegative().optional(),
    requests: z.number().int().nonnegative(),
  }),
  /** `@argus` in the team chat that Argus did not take up, and why (viewer, budget spent, empty). */
  "ask.refused": z.object({ chatMessageId: z.string(), by: person, reason: z.string() }),
};

/** The workspace's daily chat budget, as owners set it and everyone sees it. */
export const askBudgetSchema = z.object({
  /** Model tokens (input + output) a day across the workspace's answers; null: no limit. */
  maxTokens: z.number().int().positive().nullable(),
  /** Dollars a day; null: no limit. Models without a known price count tokens only. */
  maxCostUsd: z.number().positive().nullable(),
});
export type AskBudget = z.infer<typeof askBudgetSchema>;

/**
 * The question of a chat message that calls Argus (`@argus where …`): the text with the mention
 * removed, or null when the message does not call Argus. A mention inside a word (`me@argus.io`) or
 * inside inline code does not count.
 */
export function mentionedQuestion(body: string): string | null {
  const re = /(^|[^\w@.`-])@argus(?![\w.-])/i;
  const m = re.exec(body);
  if (!m) return null;
  const at = m.index + m[1]!.length;
  const after = body.slice(at + ASK_MENTION.length).replace(/^[,:]?\s*/, "");
  return `${body.slice(0, at)}${after}`.replace(/^[\s,:]+/, "").trim();
}
