/**
 * Share links of a review: how long one lasts (the choices the Share dialog offers and the service
 * accepts) and the name spectators go by in a room. A spectator is whoever opens the link, without an
 * account: they watch the review's room, and nothing of them is personal.
 */
import { z } from "zod";

export const SHARE_LIFETIMES = { "1d": 1, "7d": 7, "30d": 30 } as const;
export const shareLifetimeSchema = z.enum(["1d", "7d", "30d"], {
  error: "Choose how long the link works: 1d, 7d or 30d.",
});
export type ShareLifetime = z.infer<typeof shareLifetimeSchema>;

export const SHARE_LIFETIME_LABEL: Record<ShareLifetime, string> = {
  "1d": "1 day",
  "7d": "7 days",
  "30d": "30 days",
};

/** How a spectator shows in presence and wherever a name would go. */
export const GUEST_NAME = "Guest";

/** The path of a share link (the token is the secret; only its hash is stored). */
export const sharePath = (token: string) => `/share/${encodeURIComponent(token)}`;
