/** The steer.* messages of the room protocol, handed to server/review/steering.ts. */
import type { Steering } from "../review/index.ts";
import type { Handlers } from "./protocol.ts";

export function steerHandlers(
  steering: Steering,
): Pick<Handlers, "steer.hint" | "steer.pause" | "steer.resume" | "steer.stop"> {
  const act = (action: "pause" | "resume" | "stop") =>
    (async (socket, _payload, room) => {
      await steering.act(socket.data.actor, room!, action);
      return {};
    }) satisfies Handlers["steer.pause"];
  return {
    "steer.hint": async (socket, { text }, room) => steering.hint(socket.data.actor, room!, text),
    "steer.pause": act("pause"),
    "steer.resume": act("resume"),
    "steer.stop": act("stop"),
  };
}
