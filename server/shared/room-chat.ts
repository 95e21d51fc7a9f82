/**
 * Team chat in a room: the limits, a message's text as a client may send it, and a message as every
 * watcher sees it (the `chat_message` event of every kind of room, and the chat pages). A message with
 * a `thread` belongs to that finding's thread (its fingerprint), only in review rooms.
 */
import { z } from "zod";
import { sizedTextSchema } from "./text-size.ts";

/** A message's text, in UTF-8 bytes. */
export const CHAT_MAX_BYTES = 16 * 1024;
/** Per user, across rooms: at most this many messages (sent or edited) … */
export const CHAT_RATE_MESSAGES = 10;
/** … within this window. */
export const CHAT_RATE_WINDOW_MS = 5000;
/** Messages in one chat page. */
export const CHAT_PAGE = 50;

export const chatBodySchema = sizedTextSchema({
  maxBytes: CHAT_MAX_BYTES,
  empty: "a message needs some text",
  what: "a message",
  advice: "split it or shorten it",
});

/** A finding's thread: its fingerprint. */
export const threadSchema = z.string().min(1).max(200);

export const chatMessageSchema = z.object({
  id: z.string(),
  /** The finding's fingerprint for a thread message; null in the room's chat. */
  thread: z.string().nullable(),
  author: z.object({ id: z.string(), name: z.string() }),
  /** Empty once deleted. */
  body: z.string(),
  /** 1 when written, +1 per edit: of two copies of a message, the higher version is the current one. */
  version: z.number().int().positive(),
  createdAt: z.string(),
  editedAt: z.string().nullable(),
  deleted: z.boolean(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const chatEditSchema = z.object({
  version: z.number().int().positive(),
  body: z.string(),
  replacedAt: z.string(),
});
export type ChatEdit = z.infer<typeof chatEditSchema>;

/** Messages by id, each at its highest version (pages and live events arrive in any order). */
export function mergeMessages(
  into: ReadonlyMap<string, ChatMessage>,
  messages: readonly ChatMessage[],
): Map<string, ChatMessage> {
  const next = new Map(into);
  for (const m of messages) {
    const had = next.get(m.id);
    if (!had || m.version > had.version || (m.version === had.version && m.deleted && !had.deleted)) next.set(m.id, m);
  }
  return next;
}
