/**
 * The Socket.IO protocol of rooms: every client→server message with its payload schema and its reply
 * (acknowledgement), and every server→client message. The server parses each payload with these
 * schemas (server/realtime/protocol.ts) and types its Socket.IO server with the interfaces below; the
 * browser types its socket with the same interfaces (app/_lib/room.ts).
 *
 * Every reply is `{ ok: true, … }` or `{ ok: false, code, message, retryAfterMs? }` (ackErrorSchema):
 * the code says what kind of refusal it is, the message what was wrong in words a person can act on,
 * and nothing was applied. Every message has a budget (server/rooms/message-limits.ts): past it the
 * reply is `rate_limited` with `retryAfterMs`.
 */
import { z } from "zod";
import type { RoomEvent } from "./room-events.ts";
import { CHAT_PAGE, chatBodySchema, type ChatEdit, type ChatMessage, threadSchema } from "./room-chat.ts";
import { focusSchema, type PresentMember } from "./room-presence.ts";
import { type MessageReactions, type Reaction, reactionEmojiSchema } from "./room-reactions.ts";
import type { Typist } from "./room-typing.ts";
import { roomNameSchema } from "./rooms.ts";
import { type DocNotice, type DocOpened, docPayloads } from "./coedit.ts";
import type { NotificationPush } from "./notifications.ts";
import { hintTextSchema } from "./steering.ts";
import { type Vote, verdictSchema } from "./team-verdicts.ts";

/**
 * Events a join or history reply carries at most; `more` says that another history call is needed.
 * A long review's log (20,000 events, bench/rooms) is four pages: each page is a round trip the
 * client waits for, and it is read by the same indexed query (room, seq) whatever its size.
 */
export const HISTORY_PAGE = 5000;

const seq = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const messageId = z.uuid();

/**
 * The version of this protocol. The browser sends it in the handshake (`auth: { protocol }`); a
 * client of another version is refused with PROTOCOL_OUTDATED and told to reload (its page was
 * loaded before Argus was updated), instead of misreading replies silently. Raise it when a message,
 * a payload or a reply changes in a way an older page would misread.
 */
export const ROOM_PROTOCOL_VERSION = 2;
/** The handshake refusal's `data.code` for a client of another protocol version. */
export const PROTOCOL_OUTDATED = "protocol_outdated";

/**
 * The largest reply of a read (join, history, chat.page), in bytes of its events' or messages' JSON:
 * a page stops before it would pass this (holding at least one item) and says `more`; the client
 * pages on. Keeps one reply from costing the server (and the network) megabytes at once.
 */
export const REPLY_MAX_BYTES = 512 * 1024;

/**
 * What kind of refusal an error reply is, so the browser can act on it (a rate limit says when to
 * retry, unauthenticated asks to sign in …): the domain error kinds (server/errors.ts), a rate
 * limit, and `internal` for a failure of the server's own (the message then carries no detail).
 */
export const ackErrorCodeSchema = z.enum([
  "invalid",
  "unauthenticated",
  "forbidden",
  "not_found",
  "conflict",
  "rate_limited",
  "internal",
]);
export type AckErrorCode = z.infer<typeof ackErrorCodeSchema>;

export const ackErrorSchema = z.object({
  ok: z.literal(false),
  code: ackErrorCodeSchema,
  /** What was wrong, in words a person can act on; nothing was applied. */
  message: z.string(),
  /** With `rate_limited`: when to try again. */
  retryAfterMs: z.number().int().nonnegative().optional(),
});
export type AckError = z.infer<typeof ackErrorSchema>;
export type Ack<T extends object = object> = ({ ok: true } & T) | AckError;

/** Payload schemas of the client→server messages. */
export const clientMessages = {
  /** Enter a room: the reply carries the persisted events after `afterSeq`, then events arrive live. */
  join: z.object({ room: roomNameSchema, afterSeq: seq.default(0) }),
  leave: z.object({ room: roomNameSchema }),
  /** The next page of a room's log (after a join or history reply that said `more`). */
  history: z.object({ room: roomNameSchema, afterSeq: seq }),
  /** Post to the room's chat, or (with `thread`) to a finding's thread in a review room. */
  "chat.send": z.object({ room: roomNameSchema, body: chatBodySchema, thread: threadSchema.nullable().default(null) }),
  /** Replace the text of one's own message (the earlier text is kept: `chat.edits`). */
  "chat.edit": z.object({ room: roomNameSchema, id: messageId, body: chatBodySchema }),
  "chat.delete": z.object({ room: roomNameSchema, id: messageId }),
  /** Messages before `before` (a message id; newest when absent), oldest first. */
  "chat.page": z.object({
    room: roomNameSchema,
    thread: threadSchema.nullable().default(null),
    before: messageId.optional(),
    limit: z.number().int().min(1).max(CHAT_PAGE).default(CHAT_PAGE),
  }),
  /** The earlier texts of an edited message. */
  "chat.edits": z.object({ room: roomNameSchema, id: messageId }),
  /** The sender is typing in the room's chat (or a finding's thread): passed on to the others, not stored. */
  "chat.typing": z.object({ room: roomNameSchema, thread: threadSchema.nullable().default(null) }),
  /** Adds the sender's reaction with this emoji to a message of the room, or takes it back if they had it. */
  "chat.react": z.object({ room: roomNameSchema, id: messageId, emoji: reactionEmojiSchema }),
  /** The sender's verdict on a finding of the review (null takes their vote back). */
  "finding.vote": z
    .object({
      room: roomNameSchema,
      fingerprint: threadSchema,
      verdict: verdictSchema.nullable(),
      duplicateOf: threadSchema.optional(),
    })
    .refine((v) => (v.verdict === "duplicate") === (v.duplicateOf !== undefined), {
      message: "name the finding it duplicates (duplicateOf) with the verdict duplicate, and only then",
      path: ["duplicateOf"],
    }),
  "finding.resolve": z.object({ room: roomNameSchema, fingerprint: threadSchema, resolved: z.boolean() }),
  /** A hint for a running agent review's model, given at its next iteration. */
  "steer.hint": z.object({ room: roomNameSchema, text: hintTextSchema }),
  /** No model request until resumed (the pause outlives a reload and a restart). */
  "steer.pause": z.object({ room: roomNameSchema }),
  "steer.resume": z.object({ room: roomNameSchema }),
  /** End the exploration: the review reports what it found so far. */
  "steer.stop": z.object({ room: roomNameSchema }),
  /** What the sender looks at in a room they joined (null: nothing, or hidden). */
  "presence.update": z.object({ room: roomNameSchema, focus: focusSchema.nullable() }),
  /** Co-editing a pipeline's or prompt's draft (server/shared/coedit.ts). */
  ...docPayloads,
};
export type ClientMessage = keyof typeof clientMessages;

/**
 * The role in the room's workspace each message needs, checked on every message (null: none — leaving
 * is always allowed). Viewers watch; changing what the team sees of a review needs a member.
 */
export const MESSAGE_ROLES: Record<ClientMessage, "viewer" | "member" | null> = {
  join: "viewer",
  leave: null,
  history: "viewer",
  // Viewers talk too: a chat changes nothing of the workspace's work.
  "chat.send": "viewer",
  "chat.edit": "viewer",
  "chat.delete": "viewer",
  "chat.page": "viewer",
  "chat.edits": "viewer",
  "chat.typing": "viewer",
  "chat.react": "viewer",
  "presence.update": "viewer",
  // A verdict changes what later reviews raise (false positive → the project's dismissals).
  "finding.vote": "member",
  "finding.resolve": "member",
  // Steering spends (or saves) the workspace's model budget: members only.
  "steer.hint": "member",
  "steer.pause": "member",
  "steer.resume": "member",
  "steer.stop": "member",
  // A viewer follows a shared draft (and shows their cursor); editing and saving need a member.
  "doc.open": "viewer",
  "doc.awareness": "viewer",
  "doc.update": "member",
  "doc.save": "member",
};
/**
 * What a spectator (someone who opened a review's share link, without an account) may send — only
 * into that review's room, checked on every message like the roles above. They watch: enter, leave,
 * read the log and the chat. Everything else is refused, including two reads:
 * - `chat.edits`: an author who changed a message may have taken something back; outsiders see what
 *   the message says now, the team sees its earlier texts.
 * - `presence.update`: what a guest looks at would be broadcast to the team, text of an outsider's
 *   choosing in the members' room; a guest is shown as present, not followed.
 * Typing and reactions are refused like posting: a guest does not write into the team's chat.
 */
export const SPECTATOR_MESSAGES: Record<ClientMessage, boolean> = {
  join: true,
  leave: true,
  history: true,
  "chat.page": true,
  "chat.send": false,
  "chat.edit": false,
  "chat.delete": false,
  "chat.edits": false,
  "chat.typing": false,
  "chat.react": false,
  "presence.update": false,
  "finding.vote": false,
  "finding.resolve": false,
  "steer.hint": false,
  "steer.pause": false,
  "steer.resume": false,
  "steer.stop": false,
  "doc.open": false,
  "doc.awareness": false,
  "doc.update": false,
  "doc.save": false,
};
export type ClientPayload<M extends ClientMessage> = z.output<(typeof clientMessages)[M]>;

/** The log after a seq: at most HISTORY_PAGE events and REPLY_MAX_BYTES, oldest first. */
export interface HistoryReply {
  events: RoomEvent[];
  /** True when more events follow the last one here (ask again with its seq). */
  more: boolean;
}

/** What each message's acknowledgement carries when it succeeded. */
export interface ClientReplies {
  join: HistoryReply;
  history: HistoryReply;
  "chat.send": { message: ChatMessage };
  "chat.edit": { message: ChatMessage };
  "chat.delete": { message: ChatMessage };
  /** `reactions`: those of the page's messages that have any. */
  "chat.page": { messages: ChatMessage[]; more: boolean; reactions: MessageReactions[] };
  "chat.edits": { edits: ChatEdit[] };
  "chat.typing": object;
  /** The message's reactions after the toggle (also published to the room as `chat_reactions`). */
  "chat.react": { reactions: Reaction[] };
  "presence.update": object;
  "finding.vote": { votes: Vote[] };
  "finding.resolve": object;
  "steer.hint": { id: string };
  "steer.pause": object;
  "steer.resume": object;
  "steer.stop": object;
  "doc.open": DocOpened;
  "doc.update": object;
  "doc.awareness": object;
  "doc.save": { version: number | null };
}

type Input<M extends ClientMessage> = z.input<(typeof clientMessages)[M]>;

/** Client→server events, for `Server<ClientToServerEvents, …>` and `Socket<ServerToClientEvents, ClientToServerEvents>`. */
export type ClientToServerEvents = {
  [M in ClientMessage]: M extends keyof ClientReplies
    ? (payload: Input<M>, ack: (reply: Ack<ClientReplies[M]>) => void) => void
    : (payload: Input<M>) => void;
};

export interface ServerToClientEvents {
  ready: (info: { userId: string }) => void;
  /** A live event of a joined room. */
  event: (event: RoomEvent) => void;
  /** The user may no longer be in this room (it was deleted, or their access was): it was left. */
  revoked: (info: { room: string; reason: string }) => void;
  /**
   * Who is in a joined room now, and what each looks at (sent whenever that changes). With several
   * nodes two lists can arrive out of order: keep the one with the highest version.
   */
  presence: (info: { room: string; members: PresentMember[]; version?: number }) => void;
  /** A notification for this user was written (sent to every socket of theirs): the inbox's unread count is `unread`. */
  notification: (push: NotificationPush) => void;
  /** Someone else in a joined room is typing (in its chat, or in a finding's thread): not stored. */
  typing: (info: { room: string; thread: string | null; user: Typist }) => void;
  /** An edit of a room's shared draft (a Yjs update, base64), already stored. */
  "doc.update": (info: { room: string; generation: number; update: string }) => void;
  /** Cursors of a room's shared draft changed (a y-protocols awareness update, base64). */
  "doc.awareness": (info: { room: string; update: string }) => void;
  /** The draft is full, was saved, started again, or ended (its pipeline or prompt was deleted). */
  "doc.notice": (info: { room: string; notice: DocNotice }) => void;
}
