import { describe, expect, it } from "vitest";
import { DomainError } from "../errors.ts";
import { createSetupToken, SETUP_LINK_MISSING, SETUP_LINK_WRONG } from "./setup-token.ts";

/** The token in an announcement's link. */
function tokenOf(announcement: string): string {
  const m = /\/sign-up\?setup=([\w-]+)$/.exec(announcement);
  if (!m) throw new Error(`no setup link in: ${announcement}`);
  return decodeURIComponent(m[1]!);
}

function refusal(fn: () => void): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error("expected a refusal");
}

describe("setup token", () => {
  it("draws a fresh random token for each start and prints it as a link", () => {
    const a = createSetupToken().announcement("http://localhost:3000");
    const b = createSetupToken().announcement("http://localhost:3000");
    expect(a).toMatch(/^Argus has no owner yet\. .*: http:\/\/localhost:3000\/sign-up\?setup=[\w-]{32}$/);
    expect(tokenOf(a)).not.toBe(tokenOf(b));
  });

  it("accepts exactly its own token", () => {
    const setup = createSetupToken();
    const token = tokenOf(setup.announcement("http://x"));
    expect(() => setup.check(token)).not.toThrow();
    expect(() => setup.check(token)).not.toThrow(); // checking does not use it up; creating the owner does
  });

  it("a missing token and a wrong one are refused (403) with what to do", () => {
    const setup = createSetupToken();
    const token = tokenOf(setup.announcement("http://x"));
    for (const missing of [undefined, ""]) {
      const err = refusal(() => setup.check(missing));
      expect(err.kind).toBe("forbidden");
      expect(err.message).toBe(SETUP_LINK_MISSING);
    }
    // Wrong in every way: another token, a prefix, one character off, much longer (no length leak, no throw).
    for (const wrong of [
      tokenOf(createSetupToken().announcement("http://x")),
      token.slice(0, 10),
      `${token}x`,
      "x".repeat(5000),
    ]) {
      const err = refusal(() => setup.check(wrong));
      expect(err.kind).toBe("forbidden");
      expect(err.message).toBe(SETUP_LINK_WRONG);
      expect(err.message).toMatch(/Open the setup link printed in the server log/);
    }
  });

  it("is single-use: once the owner exists the token opens nothing", () => {
    const setup = createSetupToken();
    const token = tokenOf(setup.announcement("http://x"));
    setup.consume();
    expect(refusal(() => setup.check(token)).message).toBe(SETUP_LINK_WRONG);
    expect(setup.announcement("http://x")).toBe("Argus is set up.");
  });

  it("a preset token (SETUP_TOKEN) works and is never echoed to the log", () => {
    const preset = "operator-chosen-token-123";
    const setup = createSetupToken(preset);
    const line = setup.announcement("https://argus.example.com");
    expect(line).not.toContain(preset);
    expect(line).toContain("https://argus.example.com/sign-up?setup=<SETUP_TOKEN>");
    expect(() => setup.check(preset)).not.toThrow();
    expect(refusal(() => setup.check("operator-chosen-token-124")).message).toBe(SETUP_LINK_WRONG);
  });
});
