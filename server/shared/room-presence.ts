/**
 * Presence in a room: who is there and what each is looking at — a finding, a file and line, or the
 * activity log. A user is present while at least one of their sockets is in the room.
 */
import { z } from "zod";

export const focusSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("finding"), fingerprint: z.string().min(1).max(200) }),
  z.object({
    kind: z.literal("file"),
    path: z.string().min(1).max(1024),
    line: z.number().int().positive().max(10_000_000).optional(),
  }),
  z.object({ kind: z.literal("activity") }),
]);
export type Focus = z.infer<typeof focusSchema>;

export interface PresentMember {
  userId: string;
  name: string;
  /** What they look at now; null when they said nothing (or hid it). */
  focus: Focus | null;
}

/** Presence updates a user may send (over all rooms) … */
export const PRESENCE_RATE_UPDATES = 30;
/** … within this window. */
export const PRESENCE_RATE_WINDOW_MS = 5000;

/** "src/app.ts:12", "a finding", "the activity log". */
export function describeFocus(focus: Focus | null): string {
  if (!focus) return "";
  if (focus.kind === "file") return focus.line ? `${focus.path}:${focus.line}` : focus.path;
  if (focus.kind === "finding") return "a finding";
  return "the activity log";
}

export function sameFocus(a: Focus | null, b: Focus | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
