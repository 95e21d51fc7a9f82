import { describe, expect, it } from "vitest";
import { mentionedQuestion, questionSchema } from "./ask.ts";

describe("mentionedQuestion", () => {
  it("takes the question out of a message that calls @argus, wherever the mention is", () => {
    expect(mentionedQuestion("@argus where are passwords hashed?")).toBe("where are passwords hashed?");
    expect(mentionedQuestion("@Argus, what does src/a.ts:3 do")).toBe("what does src/a.ts:3 do");
    expect(mentionedQuestion("hey @argus: who calls getUser?")).toBe("hey who calls getUser?");
    expect(mentionedQuestion("@argus")).toBe("");
  });

  it("ignores messages that do not call Argus", () => {
    expect(mentionedQuestion("mail me@argus.io")).toBeNull();
    expect(mentionedQuestion("the @argusbot account")).toBeNull();
    expect(mentionedQuestion("write `@argus` to ask")).toBeNull();
    expect(mentionedQuestion("nothing here")).toBeNull();
  });
});

describe("questionSchema", () => {
  it("refuses empty questions and questions over 8 KB, saying how long they were", () => {
    expect(questionSchema.safeParse(" \n ").error?.issues[0]?.message).toContain("needs some text");
    const big = questionSchema.safeParse("é".repeat(4097)); // 8,194 bytes
    expect(big.error?.issues[0]?.message).toContain("this one is 8,194 bytes");
    expect(questionSchema.safeParse("x".repeat(8192)).success).toBe(true);
  });
});
