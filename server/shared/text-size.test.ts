import { describe, expect, it } from "vitest";
import { questionSchema } from "./ask.ts";
import { chatBodySchema } from "./room-chat.ts";
import { sizedTextSchema, utf8Bytes } from "./text-size.ts";

const first = (r: { error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

describe("text with a limit in bytes", () => {
  const note = sizedTextSchema({
    maxBytes: 1024,
    empty: "a note needs some text",
    what: "a note",
    advice: "shorten it",
  });

  it("counts UTF-8 bytes, not characters", () => {
    expect(utf8Bytes("é")).toBe(2);
    expect(note.safeParse("é".repeat(512)).success).toBe(true);
    expect(first(note.safeParse("é".repeat(513)))).toBe(
      "a note is at most 1 KB (1,024 bytes); this one is 1,026 bytes — shorten it",
    );
    expect(first(note.safeParse(" \n "))).toBe("a note needs some text");
  });

  it("is the one rule behind chat messages and questions to Argus", () => {
    expect(first(chatBodySchema.safeParse("x".repeat(16 * 1024 + 1)))).toBe(
      "a message is at most 16 KB (16,384 bytes); this one is 16,385 bytes — split it or shorten it",
    );
    expect(chatBodySchema.safeParse("x".repeat(16 * 1024)).success).toBe(true);
    expect(first(questionSchema.safeParse("x".repeat(8 * 1024 + 1)))).toBe(
      "a question is at most 8 KB (8,192 bytes); this one is 8,193 bytes — ask about less at once, or point at the files instead of pasting them",
    );
    expect(first(questionSchema.safeParse(""))).toBe(
      "a question needs some text: ask what you want to know about the code",
    );
  });
});
