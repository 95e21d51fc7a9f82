/**
 * Steering a running agent review: members post hints (given to the model at the next iteration
 * boundary), pause it (no model request until resumed), resume it, or stop it (it reports what it
 * found so far). What a review's steering is now — paused by whom, stop asked by whom — is the same
 * shape for the page (reviews.get) and the room's events.
 */
import { z } from "zod";

export const HINT_MAX_CHARS = 4000;

export const hintTextSchema = z
  .string()
  .trim()
  .min(1, "a hint needs some text")
  .max(HINT_MAX_CHARS, `a hint is at most ${HINT_MAX_CHARS.toLocaleString("en")} characters`);

const person = z.object({ id: z.string(), name: z.string() });
const byWhom = z.object({ by: person, at: z.string() });

export const steeringStateSchema = z.object({ paused: byWhom.nullable(), stopRequested: byWhom.nullable() });
export type SteeringState = z.infer<typeof steeringStateSchema>;

export const STEER_ACTIONS = ["paused", "resumed", "stop_requested"] as const;

export const steeringPayloads = {
  /** A teammate's hint, as posted. */
  hint: z.object({ id: z.string(), author: person, text: z.string(), at: z.string() }),
  /** The hint went to the model, before the turn numbered `iteration`. */
  hint_delivered: z.object({ id: z.string(), iteration: z.number().int().nonnegative() }),
  steering: z.object({ action: z.enum(STEER_ACTIONS), by: person, at: z.string() }),
};
