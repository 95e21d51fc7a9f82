/**
 * Pulls a tagged JSON answer (`REPORT: {…}`, `VERDICT: {…}`) out of a model's text and validates it.
 * Models wrap it in prose and code fences, and sometimes mention the tag in passing first, so: the
 * LAST occurrence of the tag that is followed by a parseable JSON object wins; prose before it, a
 * ```json fence around it and anything after the closing brace are ignored. On failure the error says
 * exactly what was wrong, in words the model can act on in a repair turn.
 */
import type { z } from "zod";
import { formatZodIssues } from "../shared/zod-issues.ts";

export type Extracted<T> = { ok: true; value: T } | { ok: false; error: string };

export function extractTagged<S extends z.ZodType>(text: string, tag: string, schema: S): Extracted<z.infer<S>> {
  const positions = [...text.matchAll(new RegExp(`\\b${tag}\\s*:`, "g"))].map((m) => m.index + m[0].length);
  if (positions.length === 0) {
    return {
      ok: false,
      error: `No "${tag}:" line was found in your answer. End your answer with ${tag}: followed by the JSON object.`,
    };
  }
  let firstError: string | undefined;
  for (let i = positions.length - 1; i >= 0; i--) {
    const parsed = parseObjectAt(text, positions[i]!, tag);
    if (!parsed.ok) {
      firstError ??= parsed.error;
      continue;
    }
    const result = schema.safeParse(parsed.value);
    if (result.success) return { ok: true, value: result.data };
    return {
      ok: false,
      error: `The ${tag} JSON does not match the required schema:\n${formatZodIssues(result.error, { prefix: "- ", root: "(root)", limit: 20 })}`,
    };
  }
  return { ok: false, error: firstError! };
}

function parseObjectAt(text: string, from: number, tag: string): Extracted<unknown> {
  const rest = text.slice(from);
  const start = /^\s*(?:```[a-zA-Z]*\s*)?\{/.exec(rest);
  if (!start) return { ok: false, error: `"${tag}:" must be followed directly by a JSON object starting with "{".` };
  const open = start[0].length - 1;
  const end = matchingBrace(rest, open);
  if (end < 0) {
    return {
      ok: false,
      error: `The JSON after "${tag}:" is incomplete: it ends before its closing brace (was the answer cut off?). Send the whole object again, shorter if needed.`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(rest.slice(open, end + 1)) };
  } catch (err) {
    return { ok: false, error: `The JSON after "${tag}:" is not valid JSON: ${(err as Error).message}.` };
  }
}

/** Index of the brace closing the object that opens at `open`, honouring strings and escapes; -1 if none. */
function matchingBrace(s: string, open: number): number {
  let depth = 0;
  let inString = false;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}
