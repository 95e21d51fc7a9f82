import { describe, expect, it } from "vitest";
import { ackErrorText } from "./ack-text.ts";

describe("ackErrorText", () => {
  it("says when to retry after a rate limit, in whole seconds", () => {
    expect(ackErrorText({ ok: false, code: "rate_limited", message: "x", retryAfterMs: 1200 })).toBe(
      "Too many requests at once: try again in 2 s.",
    );
    expect(ackErrorText({ ok: false, code: "rate_limited", message: "x" })).toMatch(/a moment/);
  });

  it("keeps the server's words for refusals that name what was wrong", () => {
    expect(ackErrorText({ ok: false, code: "forbidden", message: "Viewers cannot vote." })).toBe(
      "Viewers cannot vote.",
    );
  });

  it("asks to sign in for an ended session, and to reload for a reply it cannot read", () => {
    expect(ackErrorText({ ok: false, code: "unauthenticated", message: "Sign in." })).toMatch(/sign in again/);
    expect(ackErrorText({ ok: false, error: "old shape" })).toMatch(/reload the page/);
  });
});
