/**
 * Chat with a pipeline, as the browser and the server both see it: the limits of a message, the
 * shapes of a session and its turns, and how an answer's citations `[n]` are found (the chat page
 * links them to the sources under the answer; the exports number them the same way). Pure.
 */
import { z } from "zod";

/** As long as a chat run's question may be (server/shared/pipelines.ts runDatasetSchema). */
export const MAX_CHAT_MESSAGE = 4000;
export const MAX_CHAT_TITLE = 120;
/** A session's title until its first question names it. */
export const NEW_CHAT_TITLE = "New chat";

export const chatMessageText = z
  .string({ error: "Type a question first." })
  .trim()
  .min(1, "Type a question first.")
  .max(MAX_CHAT_MESSAGE, `Keep a message under ${MAX_CHAT_MESSAGE.toLocaleString("en")} characters.`);

export const chatTitle = z
  .string({ error: "Give the session a name." })
  .trim()
  .min(1, "Give the session a name.")
  .max(MAX_CHAT_TITLE, `Keep the name under ${MAX_CHAT_TITLE} characters.`);

/** What a session talks to: a workspace pipeline or a gallery entry (in a workspace). */
export const chatTargetSchema = z.union([
  z.object({ uid: z.uuid("uid must be a UUID") }),
  z.object({ workspaceId: z.string().min(1), key: z.string().min(1).max(100) }),
]);
export type ChatTarget = z.infer<typeof chatTargetSchema>;

export interface ChatSource {
  id: number;
  title: string;
  content: string;
}

export type ChatTurnStatus = "running" | "done" | "failed" | "cancelled";
/** pipeline: the whole pipeline ran on the question; conversation: a follow-up over the earlier turns. */
export type ChatTurnMode = "pipeline" | "conversation";

export interface ChatTurn {
  uid: string;
  role: "user" | "assistant";
  body: string;
  status: ChatTurnStatus;
  mode: ChatTurnMode | null;
  runUid: string | null;
  sources: ChatSource[];
  error: string | null;
  createdAt: Date | string;
}

export type CitationPart = { kind: "text"; text: string } | { kind: "cite"; id: number; text: string };

/**
 * The answer's text cut at its citations: `[1]`, `[2, 3]` and `[2][3]` become cite parts for ids the
 * sources have; any other bracket stays text (a `[1]` with no source 1 is not a link to nothing).
 */
export function citationParts(text: string, known: ReadonlySet<number>): CitationPart[] {
  const parts: CitationPart[] = [];
  const re = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g;
  let last = 0;
  const pushText = (t: string) => {
    if (!t) return;
    const prev = parts[parts.length - 1];
    if (prev?.kind === "text") prev.text += t;
    else parts.push({ kind: "text", text: t });
  };
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const ids = m[1]!.split(",").map((s) => Number(s.trim()));
    if (!ids.every((id) => known.has(id))) continue;
    pushText(text.slice(last, m.index));
    for (const id of ids) parts.push({ kind: "cite", id, text: `[${id}]` });
    last = m.index + m[0].length;
  }
  pushText(text.slice(last));
  return parts;
}

/** The ids an answer cites, in order of first appearance. */
export function citedIds(text: string, known: ReadonlySet<number>): number[] {
  const seen: number[] = [];
  for (const p of citationParts(text, known)) if (p.kind === "cite" && !seen.includes(p.id)) seen.push(p.id);
  return seen;
}

/** A session's title from its first question: its first line, cut at a word near 60 characters. */
export function titleFromQuestion(question: string): string {
  const line = question.trim().split(/\r?\n/)[0]!.replace(/\s+/g, " ");
  if (line.length <= 60) return line || NEW_CHAT_TITLE;
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
