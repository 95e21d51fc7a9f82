/** The chat messages of the room protocol, handed to the room chat service (server/rooms/chat.ts). */
import type { RoomChat } from "../rooms/chat.ts";
import type { RoomReactions } from "../rooms/reactions.ts";
import type { Handlers } from "./protocol.ts";

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
      // A page carries its messages' reactions: their events may be older than what a client holds.
      const ids = page.messages.map((m) => m.id);
      return { ...page, reactions: await reactions.forMessages(room!, ids) };
    },
    "chat.edits": async (_socket, { id }, room) => ({ edits: await chat.edits(room!, { id }) }),
  };
}
