/**
 * Reactions to chat messages: a fixed set of emoji (so every client can draw them, and nobody posts
 * arbitrary text as a "reaction"), and a message's reactions as every watcher sees them — the
 * `chat_reactions` event of every kind of room and the chat pages carry the whole state of one
 * message, so the latest one of a message is what it shows.
 */
import { z } from "zod";

/** The emoji one may react with, each with the name a screen reader says. */
export const REACTIONS = [
  { emoji: "👍", name: "thumbs up" },
  { emoji: "👎", name: "thumbs down" },
  { emoji: "🎉", name: "party" },
  { emoji: "❤️", name: "heart" },
  { emoji: "😄", name: "smile" },
  { emoji: "🤔", name: "thinking" },
  { emoji: "👀", name: "eyes" },
  { emoji: "🚀", name: "rocket" },
] as const;

export type ReactionEmoji = (typeof REACTIONS)[number]["emoji"];
const EMOJI = REACTIONS.map((r) => r.emoji) as [ReactionEmoji, ...ReactionEmoji[]];

export const reactionEmojiSchema = z.enum(EMOJI, {
  error: () => `a reaction is one of ${EMOJI.join(" ")}`,
});

/** Reaction toggles a user may send (over all rooms) … */
export const REACTION_RATE_TOGGLES = 20;
/** … within this window. */
export const REACTION_RATE_WINDOW_MS = 5000;

export const reactionSchema = z.object({
  emoji: reactionEmojiSchema,
  /** Who reacted with it, earliest first. */
  users: z.array(z.object({ id: z.string(), name: z.string() })).min(1),
});
export type Reaction = z.infer<typeof reactionSchema>;

/** One message's reactions, in the order of REACTIONS (none: an empty list). */
export const messageReactionsSchema = z.object({
  messageId: z.string(),
  reactions: z.array(reactionSchema),
});
export type MessageReactions = z.infer<typeof messageReactionsSchema>;

export function reactionName(emoji: string): string {
  return REACTIONS.find((r) => r.emoji === emoji)?.name ?? emoji;
}

/** The order reactions are shown and sent in: that of REACTIONS. */
export function reactionOrder(emoji: string): number {
  const i = EMOJI.indexOf(emoji as ReactionEmoji);
  return i < 0 ? EMOJI.length : i;
}
