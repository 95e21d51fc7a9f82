/**
 * Share links: a read-only link to one review's live room for people without an account. Members and
 * owners make and revoke them (a link shows the review outside the workspace: not a viewer's call).
 *
 * The token is drawn like an invite's (192 random bits, base64url) but, unlike an invite, only its
 * sha256 is stored: the link is shown once, when it is made, and a copy of the database opens
 * nothing. A link works until it expires or is revoked; revoking tells the listeners (server/realtime
 * closes the link's open sockets at once) before it returns. Every use of a link checks it again
 * (`open` by token, `check` by id), so nothing keeps working on a grant read earlier.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../auth/access.ts";
import { isUniqueViolation, type Db, type ReviewShare } from "../db/client.ts";
import { conflict, forbidden, notFound } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { SHARE_LIFETIMES, shareLifetimeSchema } from "../shared/shares.ts";

export const createShareInput = z.object({
  reviewUid: z.uuid(),
  lifetime: shareLifetimeSchema.default("7d"),
});
export const shareInput = z.object({ uid: z.uuid() });
export const reviewSharesInput = z.object({ reviewUid: z.uuid() });
export const shareTokenInput = z.object({
  token: z.string().min(1, "The link has no token: copy the whole link.").max(200, "That is not a share link token."),
});

/** Active links a review may have at once: enough for every audience, not a way to fill the table. */
export const MAX_ACTIVE_SHARES = 20;

/** What a valid link opens: one review, read-only. Made only here, after the link was checked. */
export interface ShareGrant {
  readonly kind: "share";
  shareId: string;
  reviewId: string;
  reviewUid: string;
  workspaceId: string;
  expiresAt: Date;
}

export type ShareRevokedListener = (revoked: { shareId: string }) => Promise<void> | void;

const digest = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");
const day = (d: Date) => d.toISOString().slice(0, 10);

const NOT_VALID = "This share link is not valid. Check that you copied all of it.";

/** Why a stored link no longer works, or null while it does. */
function problemWith(share: Pick<ReviewShare, "revokedAt" | "expiresAt">, now = new Date()): string | null {
  if (share.revokedAt) return "This share link was revoked. Ask whoever shared it for a new one.";
  if (share.expiresAt <= now)
    return `This share link expired on ${day(share.expiresAt)}. Ask whoever shared it for a new one.`;
  return null;
}

export function createShareService(deps: { db: Db; log: Logger }) {
  const { db, log } = deps;
  const listeners = new Set<ShareRevokedListener>();

  async function reviewOf(uid: string) {
    const review = await db.review.findUnique({ where: { uid }, select: { id: true, workspaceId: true } });
    if (!review) throw notFound(`No review with id ${uid}. It may have been deleted.`);
    return review;
  }

  function grantOf(share: ReviewShare & { review: { uid: string; workspaceId: string } }): ShareGrant {
    const problem = problemWith(share);
    if (problem) throw forbidden(problem);
    return {
      kind: "share",
      shareId: share.id,
      reviewId: share.reviewId,
      reviewUid: share.review.uid,
      workspaceId: share.review.workspaceId,
      expiresAt: share.expiresAt,
    };
  }

  const withReview = { review: { select: { uid: true, workspaceId: true } } } as const;

  return {
    /** A new link for the review; the only time its token is seen (the caller builds the URL). */
    async create(actor: Actor, input: z.infer<typeof createShareInput>) {
      const user = requireUser(actor);
      const review = await reviewOf(input.reviewUid);
      await requireRole(db, actor, review.workspaceId, "member");
      const active = await db.reviewShare.count({
        where: { reviewId: review.id, revokedAt: null, expiresAt: { gt: new Date() } },
      });
      if (active >= MAX_ACTIVE_SHARES)
        throw conflict(`This review already has ${active} working share links. Revoke one before making another.`);
      const expiresAt = new Date(Date.now() + SHARE_LIFETIMES[input.lifetime] * 86_400_000);
      for (;;) {
        const token = randomBytes(24).toString("base64url");
        try {
          const share = await db.reviewShare.create({
            data: {
              uid: randomUUID(),
              tokenHash: digest(token),
              reviewId: review.id,
              createdById: user.userId,
              expiresAt,
            },
          });
          return { uid: share.uid, token, createdAt: share.createdAt, expiresAt: share.expiresAt };
        } catch (err) {
          if (!isUniqueViolation(err)) throw err; // a 192-bit collision: draw again
        }
      }
    },

    /** The review's links that still work, newest first (no tokens: they are not kept). */
    async list(actor: Actor, reviewUid: string) {
      const review = await reviewOf(reviewUid);
      await requireRole(db, actor, review.workspaceId, "member");
      const shares = await db.reviewShare.findMany({
        where: { reviewId: review.id, revokedAt: null, expiresAt: { gt: new Date() } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      const people = await db.user.findMany({
        where: { id: { in: [...new Set(shares.map((s) => s.createdById))] } },
        select: { id: true, name: true },
      });
      const name = new Map(people.map((p) => [p.id, p.name]));
      return shares.map((s) => ({
        uid: s.uid,
        createdAt: s.createdAt,
        expiresAt: s.expiresAt,
        createdBy: name.get(s.createdById) ?? "A former member",
      }));
    },

    /** The link stops working; when this returns, its open rooms on this node are closed. */
    async revoke(actor: Actor, uid: string): Promise<void> {
      const user = requireUser(actor);
      const share = await db.reviewShare.findUnique({ where: { uid }, include: withReview });
      if (!share) throw notFound("No such share link. It may belong to a review that was deleted.");
      await requireRole(db, actor, share.review.workspaceId, "member");
      if (!share.revokedAt)
        await db.reviewShare.update({
          where: { id: share.id },
          data: { revokedAt: new Date(), revokedById: user.userId },
        });
      await Promise.all(
        [...listeners].map(async (listener) => {
          try {
            await listener({ shareId: share.id });
          } catch (err) {
            // The link is revoked already (every later use is refused); the periodic re-check closes the rest.
            log.error({ err }, "a share-revoked listener failed");
          }
        }),
      );
    },

    /** The grant of a link's token, or 404 (no such link) / 403 (revoked, expired) saying so. */
    async open(token: string): Promise<ShareGrant> {
      const share = await db.reviewShare.findUnique({ where: { tokenHash: digest(token) }, include: withReview });
      if (!share) throw notFound(NOT_VALID);
      return grantOf(share);
    },

    /** The same check again for a grant already given (a spectator's socket, on every message). */
    async check(shareId: string): Promise<ShareGrant> {
      const share = await db.reviewShare.findUnique({ where: { id: shareId }, include: withReview });
      if (!share) throw forbidden("This share link no longer works: the review was deleted.");
      return grantOf(share);
    },

    /** Called when a link is revoked (awaited by `revoke`). Returns the unsubscribe function. */
    onRevoked(listener: ShareRevokedListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ShareService = ReturnType<typeof createShareService>;
