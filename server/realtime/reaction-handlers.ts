/** `chat.react` of the room protocol, handed to the reactions service (server/rooms/reactions.ts). */
import type { RoomReactions } from "../rooms/reactions.ts";
import type { Handlers } from "./protocol.ts";

export function reactionHandlers(reactions: RoomReactions): Pick<Handlers, "chat.react"> {
  return {
    "chat.react": async (socket, input, room) => reactions.toggle(socket.data.actor, room!, input),
  };
}
