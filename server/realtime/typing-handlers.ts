/**
 * `chat.typing`: passed on at once as `typing` to the room's other sockets, never stored or logged.
 * The browser sends it at most every TYPING_SIGNAL_MS while its user types; the server allows a few
 * more (TYPING_RATE_SIGNALS per TYPING_RATE_WINDOW_MS per user) and refuses the rest with when to
 * retry, so a client that ignores the pace cannot flood a room.
 */
import { invalid } from "../errors.ts";
import { createRateLimiter, type RateLimitStore } from "../lib/rate-limit.ts";
import { TYPING_RATE_SIGNALS, TYPING_RATE_WINDOW_MS } from "../shared/room-typing.ts";
import { parseRoom } from "../shared/rooms.ts";
import type { Handlers } from "./protocol.ts";

export function typingHandlers(
  opts: { now?: () => number; rateLimits?: RateLimitStore } = {},
): Pick<Handlers, "chat.typing"> {
  const limiter = createRateLimiter({
    max: TYPING_RATE_SIGNALS,
    windowMs: TYPING_RATE_WINDOW_MS,
    now: opts.now,
    store: opts.rateLimits,
    name: "typing",
    message: (s) => `Typing signals are coming too fast; the next one is accepted in ${s} s.`,
  });
  return {
    "chat.typing": async (socket, { thread }, room) => {
      const name = room!.name;
      if (!socket.rooms.has(name)) throw invalid("Join the room first; then the others see you typing.");
      if (thread !== null && parseRoom(name)?.kind !== "review")
        throw invalid("Only a review's findings have threads; type in the room's chat.");
      await limiter.hit(socket.data.actor.userId);
      const { userId: id, name: userName } = socket.data.actor;
      socket.to(name).emit("typing", { room: name, thread, user: { id, name: userName } });
      return {};
    },
  };
}
