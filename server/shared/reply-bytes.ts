/**
 * Cutting a page of items (events, messages) to a byte budget: the JSON of what is kept stays within
 * `maxBytes`, and at least one item is kept so that paging always moves on (a single item is bounded
 * by its own schema: a chat message's 16 KB, an event's payload caps).
 */
const encoder = new TextEncoder();

/** The UTF-8 size of a value's JSON. */
export const jsonBytes = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;

/** The longest prefix of `items` whose JSON fits in `maxBytes` (at least one), and whether it was cut. */
export function fitFromStart<T>(items: readonly T[], maxBytes: number): { kept: T[]; cut: boolean } {
  let used = 2; // the brackets
  for (let i = 0; i < items.length; i++) {
    used += jsonBytes(items[i]) + (i > 0 ? 1 : 0);
    if (used > maxBytes && i > 0) return { kept: items.slice(0, i), cut: true };
  }
  return { kept: [...items], cut: false };
}

/** The longest suffix (the newest of an oldest-first page) that fits, at least one; and whether it was cut. */
export function fitFromEnd<T>(items: readonly T[], maxBytes: number): { kept: T[]; cut: boolean } {
  const reversed = fitFromStart([...items].reverse(), maxBytes);
  return { kept: reversed.kept.reverse(), cut: reversed.cut };
}
