/**
 * Values in the variable pool (spec §2.3–2.7): batches (lists, one entry per item), branch-wrapped
 * lists (`{data, branch1_state, …}` per item) and the UNSET placeholder for items no branch has
 * produced yet. Plus the copy and JSON rules the memory histories and memory file use.
 */

/** "No branch has produced this item yet"; rendered `"<UNSET>"` in memory files (quirk Q7, kept). */
export const UNSET: { readonly toJSON: () => string; readonly toString: () => string } = Object.freeze({
  toJSON: () => "<UNSET>",
  toString: () => "<UNSET>",
});
export const isUnset = (v: unknown) => v === UNSET;

export type Wrapped = Record<string, unknown> & { data: unknown };

const STATE_KEY = /^branch\d+_state$/;
export const stateKey = (k: number) => `branch${k}_state`;

/** A branch-wrapped list: a list whose first element is a dict with a `branch*_state` key (upstream's test). */
export function isWrapped(v: unknown): v is Wrapped[] {
  if (!Array.isArray(v) || v.length === 0) return false;
  const first = v[0];
  return (
    first !== null &&
    typeof first === "object" &&
    !Array.isArray(first) &&
    Object.keys(first).some((k) => STATE_KEY.test(k))
  );
}

export function unwrap(v: unknown): unknown {
  return isWrapped(v) ? v.map((e) => e.data) : v;
}

/** Deep copy for histories: plain JSON-like data; UNSET and other non-plain objects are kept by reference. */
export function copyValue<T>(v: T): T {
  if (Array.isArray(v)) return v.map(copyValue) as T;
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = copyValue(x);
    return out as T;
  }
  return v;
}

/**
 * What a memory file shows for a value: prompt messages as their text (spec §4.1), UNSET as
 * "<UNSET>", anything JSON cannot represent as its string form (Python's `default=str`).
 */
export function memoryJson(v: unknown): unknown {
  if (v === UNSET) return "<UNSET>";
  if (Array.isArray(v)) return v.map(memoryJson);
  if (v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (v !== null && typeof v === "object") {
    const text = messageText(v);
    if (text !== undefined) return text;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = memoryJson(x);
    return out;
  }
  return v;
}

/** The text of an MCP PromptMessage (`{role, content: {type: "text", text}}`), else undefined. */
export function messageText(v: unknown): string | undefined {
  if (v === null || typeof v !== "object") return undefined;
  const m = v as { role?: unknown; content?: unknown };
  if (typeof m.role !== "string") return undefined;
  const c = m.content as { type?: unknown; text?: unknown } | string | undefined;
  if (typeof c === "string") return c;
  return c && typeof c === "object" && typeof c.text === "string" ? c.text : undefined;
}
