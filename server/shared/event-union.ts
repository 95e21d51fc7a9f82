/**
 * Event unions from one map of payload schemas (`{ token: z.object({ text }) , … }`), in the two
 * shapes Argus uses: `{ type, payload }` envelopes (room events: the log's type and payload columns,
 * and what the wire carries) and flat `{ type, …fields }` objects (what the agent loop emits). Writing
 * the map once keeps the two from drifting apart.
 */
import { z } from "zod";

export type PayloadMap = Record<string, z.ZodObject>;

export type Enveloped<M extends PayloadMap> = {
  [T in keyof M & string]: { type: T; payload: z.output<M[T]> };
}[keyof M & string];

export type Flat<M extends PayloadMap> = {
  [T in keyof M & string]: { type: T } & z.output<M[T]>;
}[keyof M & string];

const nonEmpty = <T>(items: T[]): items is [T, ...T[]] => items.length > 0;

/** A zod discriminated union of `{ type, payload }`, one member per entry of the map. */
export function envelopeUnion<M extends PayloadMap>(map: M): z.ZodType<Enveloped<M>> {
  const members = Object.entries(map).map(([type, payload]) => z.object({ type: z.literal(type), payload }));
  // zod cannot infer a union built from a map; Enveloped<M> is the type it builds (tested). An empty
  // map admits no event.
  const union = nonEmpty(members) ? z.discriminatedUnion("type", members) : z.never();
  return union as unknown as z.ZodType<Enveloped<M>>;
}

/** A zod discriminated union of flat `{ type, …payload }` objects, one member per entry of the map. */
export function flatUnion<M extends PayloadMap>(map: M): z.ZodType<Flat<M>> {
  const members = Object.entries(map).map(([type, payload]) => payload.extend({ type: z.literal(type) }));
  const union = nonEmpty(members) ? z.discriminatedUnion("type", members) : z.never();
  return union as unknown as z.ZodType<Flat<M>>;
}

/** A flat event as an envelope: `{ type: "token", text }` → `{ type: "token", payload: { text } }`. */
export function toEnvelope<E extends { type: string }>(
  event: E,
): E extends E ? { type: E["type"]; payload: Omit<E, "type"> } : never {
  const { type, ...payload } = event;
  return { type, payload } as never;
}
