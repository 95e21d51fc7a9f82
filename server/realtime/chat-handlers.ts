/** The chat messages of the room protocol, handed to the room chat service (server/rooms/chat.ts). */
import type { RoomChat } from "../rooms/chat.ts";
import type { RoomReactions } from "../rooms/reactions.ts";
import { fitFromEnd } from "../shared/reply-bytes.ts";
import { REPLY_MAX_BYTES } from "../shared/room-protocol.ts";
import type { Handlers } from "./protocol.ts";

/** Kept free in a chat page for its messages' reactions (a few emoji and names per message). */
const REACTIONS_BYTES = 64 * 1024;

type ChatHandlers = Pick<Handlers, "chat.send" | "chat.edit" | "chat.delete" | "chat.page" | "chat.edits">;

export function chatHandlers(chat: RoomChat, reactions: RoomReactions): ChatHandlers {
  return {
    "chat.send": async (socket, { body, thread }, room) => ({
      message: await chat.send(socket.data.actor, room!, { body, thread }),
    }),
    "chat.edit": async (socket, { id, body }, room) => ({
      message: await chat.edit(socket.data.actor, room!, { id, body }),
    }),
    "chat.delete": async (socket, { id }, room) => ({ message: await chat.remove(socket.data.actor, room!, { id }) }),
    "chat.page": async (_socket, input, room) => {
      const page = await chat.page(room!, input);
      // Within REPLY_MAX_BYTES (with room for the reactions): the newest messages of the page; the
      // client pages on before the first one, as after any page that says `more`.
      const { kept, cut } = fitFromEnd(page.messages, REPLY_MAX_BYTES - REACTIONS_BYTES);
      // A page carries its messages' reactions: their events may be older than what a client holds.
      const ids = kept.map((m) => m.id);
      return { messages: kept, more: page.more || cut, reactions: await reactions.forMessages(room!, ids) };
    },
    "chat.edits": async (_socket, { id }, room) => ({ edits: await chat.edits(room!, { id }) }),
  };
}
