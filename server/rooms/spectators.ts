/**
 * Spectators: whoever opened a review's share link, without an account. The link is their only
 * right: the Socket.IO handshake turns a valid token into a Spectator (server/realtime/handshake.ts),
 * and every message they send comes here instead of the workspace role check — on every message, not
 * only at join — so a link revoked or expired since is refused at once. They may send only the
 * messages room-protocol.ts lets spectators send (SPECTATOR_MESSAGES), and only into the review room
 * of their link.
 *
 * A spectator's socket carries a guest actor (a fresh id, the name "Guest", no email) so presence can
 * count them; the id belongs to no user, so no membership check would ever pass for it either.
 *
 * What they watch is the review's room minus the team's conversations with Argus (HIDDEN_FROM_SPECTATORS):
 * those are the workspace's (their threads name the project and snapshot, and an answer may read any
 * file of the project), asked and read through `ask.*`, which a link never reaches. The chat message
 * that asked (`@argus …`) stays in the chat they read.
 */
import { randomUUID } from "node:crypto";
import type { Actor } from "../auth/access.ts";
import { type DomainError, forbidden, invalid } from "../errors.ts";
import { type ClientMessage, SPECTATOR_MESSAGES } from "../shared/room-protocol.ts";
import { parseRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";
import { GUEST_NAME } from "../shared/shares.ts";
import type { ShareGrant, ShareService } from "../shares/service.ts";
import type { AuthorizedRoom } from "./access.ts";

/** Event types (by prefix) of a review's room a spectator is never sent: live, in pages, over HTTP. */
export const HIDDEN_FROM_SPECTATORS: readonly string[] = ["ask."];

export function hiddenFromSpectators(type: string): boolean {
  return HIDDEN_FROM_SPECTATORS.some((prefix) => type.startsWith(prefix));
}

export interface Spectator {
  shareId: string;
  /** The one room the link opens. */
  room: RoomName<"review">;
  expiresAt: Date;
}

export function spectatorOf(grant: ShareGrant): Spectator {
  return { shareId: grant.shareId, room: reviewRoom(grant.reviewUid), expiresAt: grant.expiresAt };
}

/** A guest's actor: personal to nobody, a member of nothing. */
export function guestActor(): NonNullable<Actor> {
  return { userId: `guest:${randomUUID()}`, email: "", name: GUEST_NAME };
}

const WHAT: Partial<Record<ClientMessage, string>> = {
  "chat.send": "post in the chat",
  "chat.edit": "edit messages",
  "chat.delete": "delete messages",
  "chat.edits": "see the earlier texts of edited messages",
  "chat.typing": "type in the chat",
  "chat.react": "react to messages",
  "presence.update": "share what you look at",
  "finding.vote": "vote on findings",
  "finding.resolve": "resolve findings",
  "steer.hint": "give the agent hints",
  "steer.pause": "pause the review",
  "steer.resume": "resume the review",
  "steer.stop": "stop the review",
  "doc.open": "open the team's shared drafts",
  "doc.update": "edit the team's drafts",
  "doc.awareness": "share a cursor",
  "doc.save": "save versions",
};

/**
 * The refusal of a message spectators may never send, or null: decided by the kind alone, so the
 * protocol answers it before spending anything else on the message (message-limits.ts).
 */
export function spectatorRefusal(message: ClientMessage): DomainError | null {
  if (SPECTATOR_MESSAGES[message]) return null;
  return forbidden(
    `A share link is read-only: you watch this review, you cannot ${WHAT[message] ?? "do that"}. Ask the team for an account to take part.`,
  );
}

/**
 * The room a spectator's message may act on, or throws: forbidden (a message spectators may not
 * send; a link that no longer works; another room than the link's), invalid (no room at all).
 * `leave` needs no check (null), like for members.
 */
export async function authorizeSpectator(
  shares: Pick<ShareService, "check">,
  spectator: Spectator,
  message: ClientMessage,
  room: unknown,
): Promise<AuthorizedRoom | null> {
  const refused = spectatorRefusal(message);
  if (refused) throw refused;
  if (message === "leave") return null;
  const parsed = parseRoom(room);
  if (!parsed) throw invalid("That is not a room you can join.");
  const grant = await shares.check(spectator.shareId);
  if (parsed.name !== spectator.room)
    throw forbidden("This share link opens only the review it was made for; nothing else of the workspace.");
  return { name: parsed.name, workspaceId: grant.workspaceId, role: "spectator" };
}
