/**
 * Text a person writes with a limit in UTF-8 bytes (a chat message, a question to Argus): one rule for
 * the browser's composer and the server, so both say the same thing in the same words — what is
 * missing, or how long the limit is and how long this text was.
 */
import { z } from "zod";

export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

const size = (bytes: number) => `${bytes.toLocaleString("en")} bytes`;

export function sizedTextSchema(o: {
  maxBytes: number;
  /** What a blank text is told ("a message needs some text"). */
  empty: string;
  /** "a message": the limit's sentence is "<what> is at most <n> KB (<bytes>); this one is <bytes> — <advice>". */
  what: string;
  advice: string;
}) {
  const limit = `${o.what} is at most ${o.maxBytes / 1024} KB (${size(o.maxBytes)})`;
  return z.string().superRefine((text, ctx) => {
    if (!text.trim()) {
      ctx.addIssue({ code: "custom", message: o.empty });
      return;
    }
    const bytes = utf8Bytes(text);
    if (bytes > o.maxBytes)
      ctx.addIssue({ code: "custom", message: `${limit}; this one is ${size(bytes)} — ${o.advice}` });
  });
}
