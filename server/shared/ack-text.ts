/**
 * What the browser shows (app/_components/rooms …) for a refused room message (`{ ok: false, code, message, retryAfterMs? }`,
 * server/shared/room-protocol.ts), chosen by its code: a rate limit says when to try again, an ended
 * session asks to sign in, a server failure to retry; the other refusals are the server's own words
 * (they name what was wrong). A reply that is not a protocol error at all (another server version)
 * gets a sentence that says to reload.
 */
import { ackErrorSchema, type AckError } from "./room-protocol.ts";

/** Whole seconds to wait, at least one. */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function ackErrorText(reply: AckError | unknown): string {
  const parsed = ackErrorSchema.safeParse(reply);
  if (!parsed.success) return "The server answered in a way this page does not understand: reload the page.";
  const { code, message, retryAfterMs } = parsed.data;
  switch (code) {
    case "rate_limited": {
      const wait = retryAfterMs === undefined ? "a moment" : `${seconds(retryAfterMs)} s`;
      return `Too many requests at once: try again in ${wait}.`;
    }
    case "unauthenticated":
      return "Your session has ended: sign in again to continue.";
    case "internal":
      return message || "Argus could not handle that; try again.";
    default:
      return message;
  }
}
