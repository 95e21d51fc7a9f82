import { describe, expect, it } from "vitest";
import { mentionedQuestion, roomTakesQuestions } from "./ask.ts";
import { projectRoom, reviewRoom } from "./rooms.ts";
import {
  activeMentionQuery,
  findMentions,
  insertArgus,
  insertMention,
  MAX_MENTIONS_PER_MESSAGE,
  mentionedUserIds,
  mentionMatches,
  offersArgus,
  mentionName,
  mentionsAsPlainText,
  mentionToken,
  rewriteMentions,
} from "./mentions.ts";

describe("mention tokens", () => {
  it("builds and finds the canonical form, with offsets", () => {
    const token = mentionToken({ id: "u_1-A", name: "Bea Member" });
    expect(token).toBe("@[Bea Member](mention:u_1-A)");
    const text = `hi ${token}, look`;
    expect(findMentions(text)).toEqual([{ start: 3, end: 3 + token.length, userId: "u_1-A", name: "Bea Member" }]);
  });

  it("a name cannot break out of the token: brackets, backslashes, line breaks and control characters go", () => {
    expect(mentionName("Eve](javascript:alert(1))[")).toBe("Eve (javascript:alert(1))");
    expect(mentionName("a\\b\nc\u0000d\u202e")).toBe("a b c d\u202e");
    expect(mentionName("   ")).toBe("member");
    expect([...mentionName("x".repeat(500))]).toHaveLength(80);
    const token = mentionToken({ id: "u1", name: "Eve](javascript:alert(1))[x" });
    expect(findMentions(token)).toEqual([expect.objectContaining({ userId: "u1", start: 0, end: token.length })]);
  });

  it("refuses to build a token for an id that is not one", () => {
    expect(() => mentionToken({ id: "u1)(evil", name: "x" })).toThrow(/Not a user id/);
    expect(() => mentionToken({ id: "", name: "x" })).toThrow();
  });

  it("ignores look-alikes: other schemes, no @, broken brackets, ids with other characters, empty names", () => {
    const text = [
      "[Bea](mention:u1)",
      "@[Bea](javascript:u1)",
      "@[Bea](mention:u1 )",
      "@[Bea](mention:u1/../x)",
      "@[Be[a]](mention:u1)",
      "@[ ](mention:u1)",
      "@[Bea]\n(mention:u1)",
      "@[Be\na](mention:u1)",
      "`@[Bea] (mention:u1)`",
      "@[Bea](MENTION:u1)",
    ].join(" ");
    expect(findMentions(text)).toEqual([]);
  });

  it("finds tokens back to back and mentions of one person once", () => {
    const a = mentionToken({ id: "a", name: "A" });
    const b = mentionToken({ id: "b", name: "B" });
    expect(mentionedUserIds(`${a}${b}${a}@[again](mention:b)`)).toEqual(["a", "b"]);
  });

  it("stays fast on hostile input (no catastrophic backtracking)", () => {
    const nasty = "@[".repeat(8000) + "a".repeat(16_000) + "](mention:";
    const t0 = performance.now();
    expect(findMentions(nasty)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it("writes tokens out as plain @names", () => {
    expect(mentionsAsPlainText(`hey ${mentionToken({ id: "a", name: "Ann" })}!`)).toBe("hey @Ann!");
  });
});

describe("rewriteMentions (the server's view of a message)", () => {
  const members = new Map([
    ["bea", "Bea Member"],
    ["max", "Max"],
  ]);

  it("keeps members' tokens with their real name and turns every other token into plain text", () => {
    const body = "@[The Admin](mention:bea) and @[Mallory](mention:stranger) and @[Max](mention:max)";
    expect(rewriteMentions(body, members)).toEqual({
      text: "@[Bea Member](mention:bea) and @Mallory and @[Max](mention:max)",
      userIds: ["bea", "max"],
    });
  });

  it("leaves text without tokens unchanged", () => {
    const body = "mail me@host.io, see [docs](https://example.com) and `@[x](mention:bea)`?";
    expect(rewriteMentions("plain", members)).toEqual({ text: "plain", userIds: [] });
    // Tokens inside code count as tokens: the parser works on text, not on Markdown.
    expect(rewriteMentions(body, members).userIds).toEqual(["bea"]);
  });

  it(`mentions at most ${MAX_MENTIONS_PER_MESSAGE} people; later ones stay plain text`, () => {
    const many = new Map(Array.from({ length: 60 }, (_, i) => [`u${i}`, `User ${i}`]));
    const body = [...many.keys()].map((id) => `@[x](mention:${id})`).join(" ");
    const { text, userIds } = rewriteMentions(body, many);
    expect(userIds).toHaveLength(MAX_MENTIONS_PER_MESSAGE);
    expect(findMentions(text)).toHaveLength(MAX_MENTIONS_PER_MESSAGE);
    expect(text.endsWith("@x")).toBe(true);
  });
});

describe("the composer's autocomplete", () => {
  it("is active after an @ at a word start, up to the caret", () => {
    expect(activeMentionQuery("hi @be", 6)).toEqual({ start: 3, query: "be" });
    expect(activeMentionQuery("@", 1)).toEqual({ start: 0, query: "" });
    expect(activeMentionQuery("(@Bea M", 7)).toEqual({ start: 1, query: "Bea M" });
    expect(activeMentionQuery("hi @Zoë", 7)).toEqual({ start: 3, query: "Zoë" });
  });

  it("is not active in an address, across a line break, after a space right after @, or for long runs", () => {
    expect(activeMentionQuery("me@host", 7)).toBeNull();
    expect(activeMentionQuery("@be\nx", 5)).toBeNull();
    expect(activeMentionQuery("@ be", 4)).toBeNull();
    expect(activeMentionQuery(`@${"a".repeat(41)}`, 42)).toBeNull();
    expect(activeMentionQuery("no at", 5)).toBeNull();
    expect(activeMentionQuery("@[Bea](mention:x) ", 18)).toBeNull();
  });

  it("matches any word of a name by its start, case-insensitively", () => {
    expect(mentionMatches("Bea Member", "mem")).toBe(true);
    expect(mentionMatches("Bea Member", "BEA M")).toBe(true);
    expect(mentionMatches("Bea Member", "ember")).toBe(false);
    expect(mentionMatches("Anyone", "")).toBe(true);
  });

  it("replaces the query with the token and a space, caret after it", () => {
    const r = insertMention("hi @be rest", 3, 6, { id: "bea", name: "Bea" });
    expect(r.text).toBe("hi @[Bea](mention:bea) rest");
    expect(r.caret).toBe("hi @[Bea](mention:bea) ".length);
  });
});

describe("offering Argus in the composer", () => {
  it("offers @argus for what starts its name, only where asking is possible", () => {
    expect(offersArgus("", true)).toBe(true);
    expect(offersArgus("ar", true)).toBe(true);
    expect(offersArgus("Arg", true)).toBe(true);
    expect(offersArgus("bea", true)).toBe(false);
    expect(offersArgus("ar", false)).toBe(false);
  });

  it("rooms of projects and reviews take questions; pipeline runs and knowledge bases do not", () => {
    expect(roomTakesQuestions(projectRoom(crypto.randomUUID()))).toBe(true);
    expect(roomTakesQuestions(reviewRoom(crypto.randomUUID()))).toBe(true);
    expect(roomTakesQuestions(`run:${crypto.randomUUID()}`)).toBe(false);
    expect(roomTakesQuestions("nonsense")).toBe(false);
  });

  it("picking Argus writes @argus as plain text — what the server takes as a question", () => {
    const draft = "hey @ar where is auth?";
    const r = insertArgus(draft, 4, 7);
    expect(r.text).toBe("hey @argus where is auth?");
    expect(r.caret).toBe(11);
    expect(mentionedQuestion(mentionsAsPlainText(r.text))).toBe("hey where is auth?");
  });
});
