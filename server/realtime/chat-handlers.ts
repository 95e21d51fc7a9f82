/** The chat messages of the room protocol, handed to the room chat service (server/rooms/chat.ts). */
import type { RoomChat } from "../rooms/chat.ts";
import type { Handlers } from "./protocol.ts";

type ChatHandlers = Pick<Handlers, "chat.send" | "chat.edit" | "chat.delete" | "chat.page" | "chat.edits">;

export function chatHandlers(chat: RoomChat): ChatHandlers {
  return {
    "chat.send": async (socket, { body, thread }, room) => ({
      message: await chat.send(socket.data.actor, room!, { body, thread }),
    }),
    "chat.edit": async (socket, { id, body }, room) => ({
      message: await chat.edit(socket.data.actor, room!, { id, body }),
    }),
    "chat.delete": async (socket, { id }, room) => ({ message: await chat.remove(socket.data.actor, room!, { id }) }),
    "chat.page": async (_socket, input, room) => chat.page(room!, input),
    "chat.edits": async (_socket, { id }, room) => ({ edits: await chat.edits(room!, { id }) }),
  };
}
