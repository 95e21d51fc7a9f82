import { describe, expect, it } from "vitest";
import { findCodeRefs } from "./code-refs.ts";
import { chatBodySchema, type ChatMessage, CHAT_MAX_BYTES, mergeMessages } from "./room-chat.ts";
import { safeLinkUrl } from "./safe-links.ts";

describe("code references in chat text", () => {
  it("finds path:line and path:line-line", () => {
    const text = "see src/app.ts:12 and lib/db/pool.go:40-52, also README.md:3.";
    expect(findCodeRefs(text).map((r) => [text.slice(r.start, r.end), r.path, r.line, r.endLine])).toEqual([
      ["src/app.ts:12", "src/app.ts", 12, undefined],
      ["lib/db/pool.go:40-52", "lib/db/pool.go", 40, 52],
      ["README.md:3", "README.md", 3, undefined],
    ]);
  });

  it("leaves URLs, addresses, times and reversed ranges alone", () => {
    for (const text of [
      "https://example.com:8080/x",
      "ssh me@host.io:22",
      "at 10:30",
      "a.ts:0",
      "a.ts:9-3",
      "file.ts:12abc",
      "//cdn.example.org:443",
    ])
      expect(findCodeRefs(text), text).toEqual([]);
  });
});

describe("safe links", () => {
  it("keeps http(s), mailto and in-app paths", () => {
    for (const url of ["https://example.com/a?b", "http://x.io", "mailto:a@b.c", "/projects/1?file=a", "#top"])
      expect(safeLinkUrl(url)).toBe(url);
  });
  it("drops script and data URLs, protocol-relative and odd schemes", () => {
    for (const url of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>",
      "vbscript:x",
      "//evil.example/x",
      "/\\evil.example",
      "file:///etc/passwd",
      "java\tscript:alert(1)",
    ])
      expect(safeLinkUrl(url), url).toBeNull();
  });
});

describe("chat messages", () => {
  it("a body needs text and at most 16 KB (in bytes), saying how big it was", () => {
    expect(chatBodySchema.safeParse("hi").success).toBe(true);
    expect(chatBodySchema.safeParse("   ").error?.issues[0]?.message).toBe("a message needs some text");
    expect(chatBodySchema.safeParse("a".repeat(CHAT_MAX_BYTES)).success).toBe(true);
    // 6,000 × "€" is 18,000 bytes though only 6,000 characters.
    expect(chatBodySchema.safeParse("€".repeat(6000)).error?.issues[0]?.message).toBe(
      "a message is at most 16 KB (16,384 bytes); this one is 18,000 bytes — split it or shorten it",
    );
  });

  it("merging keeps each message at its highest version, whatever the order", () => {
    const m = (version: number, body: string, deleted = false): ChatMessage => ({
      id: "m1",
      thread: null,
      author: { id: "u", name: "U" },
      body,
      version,
      createdAt: "t",
      editedAt: null,
      deleted,
    });
    const a = mergeMessages(new Map(), [m(2, "edited"), m(1, "first")]);
    expect(a.get("m1")?.body).toBe("edited");
    expect(mergeMessages(a, [m(2, "", true)]).get("m1")?.deleted).toBe(true);
  });
});
