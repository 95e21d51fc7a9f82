/**
 * The one-time setup link. Argus listens on every interface, so "the first visitor becomes the owner"
 * would hand a fresh install to whoever reaches the port first. Instead, while no workspace owner
 * exists, each start prints a link with a random token to the server log (as Jupyter does), and
 * creating the first owner needs that token: only someone who can read the log can set Argus up.
 *
 * Choice: a new token at every start, held in memory (only its SHA-256). A restart prints a new link
 * and the old one stops working; nothing about it is stored. With several web nodes, or for an
 * automated install, the operator presets the token instead (SETUP_TOKEN): every node accepts it,
 * and it is never echoed to the log. Either way the token opens one door once: it is consumed when
 * the owner is created, and no later request can use it (setup is refused once an owner exists).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { forbidden } from "../errors.ts";

export const SETUP_LINK_MISSING =
  "Setting Argus up needs the setup link printed in the server log when it started " +
  "(…/sign-up?setup=…). Open the setup link printed in the server log, then create the owner account.";
export const SETUP_LINK_WRONG =
  "This setup link is not valid: it may be from an earlier start of the server, or cut short. " +
  "Open the setup link printed in the server log (the most recent one), then create the owner account.";

export interface SetupToken {
  /** What the server log says while Argus has no owner; the link holds the token unless it was preset. */
  announcement(baseUrl: string): string;
  /** Throws 403 with what to do unless `candidate` is the token (compared in constant time). */
  check(candidate: string | undefined): void;
  /** The owner exists now: the token opens nothing any more. */
  consume(): void;
}

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

export function setupPath(token: string): string {
  return `/sign-up?setup=${encodeURIComponent(token)}`;
}

export function createSetupToken(preset?: string): SetupToken {
  const token = preset ?? randomBytes(24).toString("base64url");
  // Only the digest is kept for checking; the drawn token itself is needed once, for the log line.
  let expected: Buffer | null = digest(token);
  let link: string | null = preset ? null : setupPath(token);
  return {
    announcement(baseUrl) {
      if (!expected) return "Argus is set up.";
      return link
        ? `Argus has no owner yet. Open this one-time setup link to create the owner account: ${baseUrl}${link}`
        : `Argus has no owner yet. Open ${baseUrl}/sign-up?setup=<SETUP_TOKEN> (the token set in SETUP_TOKEN) to create the owner account.`;
    },
    check(candidate) {
      if (!candidate) throw forbidden(SETUP_LINK_MISSING);
      // Digests have equal lengths, so timingSafeEqual compares without revealing a length or a prefix.
      if (!expected || !timingSafeEqual(digest(candidate), expected)) throw forbidden(SETUP_LINK_WRONG);
    },
    consume() {
      expected = null;
      link = null;
    },
  };
}
