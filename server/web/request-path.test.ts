import { describe, expect, it } from "vitest";
import { normalizedPath, pathIsUnder } from "./request-path.ts";

describe("normalizedPath", () => {
  it.each([
    ["/api/auth/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/%2e/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/%2E/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/%252e/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth//sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/./sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/x/../sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/x/%2e%2e/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/sign-up/email/", "/api/auth/sign-up/email"],
    ["/api/auth/sign-up%2femail", "/api/auth/sign-up/email"],
    ["/api/auth/sign-up%2Femail", "/api/auth/sign-up/email"],
    ["/api/auth\\sign-up\\email", "/api/auth/sign-up/email"],
    ["/api/auth/%5csign-up/email", "/api/auth/sign-up/email"],
    ["/API/Auth/Sign-Up/EMAIL", "/api/auth/sign-up/email"],
    ["/api/auth/%73ign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/sign-up/email?x=1", "/api/auth/sign-up/email"],
    ["/api/auth/sign-up/email#frag", "/api/auth/sign-up/email"],
    ["/../../api/auth/sign-up/email", "/api/auth/sign-up/email"],
    ["api/auth/sign-up/email", "/api/auth/sign-up/email"],
    ["/api/auth/%zz/../sign-up/email", "/api/auth/sign-up/email"],
    ["/", "/"],
    ["", "/"],
    ["//", "/"],
  ])("%s → %s", (raw, expected) => expect(normalizedPath(raw)).toBe(expected));
});

describe("pathIsUnder", () => {
  it("matches the prefix itself and what is under it, not look-alike siblings", () => {
    expect(pathIsUnder("/api/auth/sign-up", "/api/auth/sign-up")).toBe(true);
    expect(pathIsUnder("/api/auth/%2e/SIGN-UP/email/", "/api/auth/sign-up")).toBe(true);
    expect(pathIsUnder("/api/auth/sign-up-later", "/api/auth/sign-up")).toBe(false);
    expect(pathIsUnder("/api/auth/sign-in/email", "/api/auth/sign-up")).toBe(false);
  });
});
