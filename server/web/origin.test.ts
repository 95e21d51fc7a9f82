import { describe, expect, it } from "vitest";
import { handshakeOriginRefusal, isStateChanging, originAllowed, originRefusal, trustedOriginsFor } from "./origin.ts";

describe("originAllowed without configured origins: the request's own host", () => {
  it.each([
    ["http://localhost:3000", "localhost:3000"],
    ["https://argus.example.com", "argus.example.com"],
    ["https://argus.example.com", "argus.example.com:443"],
    ["http://argus.example.com", "argus.example.com:80"],
    ["HTTP://ARGUS.example.com:8080", "argus.EXAMPLE.com:8080"],
    ["http://[::1]:3000", "[::1]:3000"],
  ])("%s on host %s is allowed", (origin, host) => expect(originAllowed(origin, host, [])).toBe(true));

  it.each([
    ["http://evil.example", "localhost:3000"],
    ["http://localhost:3001", "localhost:3000"],
    ["http://localhost", "localhost:3000"],
    ["https://argus.example.com.evil.example", "argus.example.com"],
    ["null", "localhost:3000"],
    ["file://", "localhost:3000"],
    ["chrome-extension://abc", "abc"],
    ["not a url", "localhost:3000"],
    ["http://localhost:3000", undefined],
    ["http://localhost:3000", "local host:3000"],
  ])("%s on host %s is refused", (origin, host) => expect(originAllowed(origin, host, [])).toBe(false));
});

describe("originAllowed with configured origins: only those", () => {
  const allowed = ["https://argus.example.com", "http://localhost:3000"];
  it("allows them exactly (case and default port normalised as browsers send them)", () => {
    expect(originAllowed("https://argus.example.com", "internal:3000", allowed)).toBe(true);
    expect(originAllowed("https://ARGUS.example.com:443", "internal:3000", allowed)).toBe(true);
    expect(originAllowed("http://localhost:3000", "internal:3000", allowed)).toBe(true);
  });
  it("refuses the rest, even the request's own host", () => {
    expect(originAllowed("http://argus.example.com", "argus.example.com", allowed)).toBe(false);
    expect(originAllowed("http://internal:3000", "internal:3000", allowed)).toBe(false);
    expect(originAllowed("https://evil.example", "argus.example.com", allowed)).toBe(false);
  });
});

describe("originRefusal", () => {
  const headers = (origin?: string) => ({ host: "localhost:3000", ...(origin ? { origin } : {}) });

  it("checks state-changing methods only", () => {
    expect(["POST", "put", "PATCH", "DELETE"].map(isStateChanging)).toEqual([true, true, true, true]);
    expect(["GET", "HEAD", "OPTIONS", undefined].map(isStateChanging)).toEqual([false, false, false, false]);
    expect(originRefusal("GET", headers("http://evil.example"), [])).toBeNull();
  });

  it("passes a same-origin POST and one without Origin (not from another site's page)", () => {
    expect(originRefusal("POST", headers("http://localhost:3000"), [])).toBeNull();
    expect(originRefusal("POST", headers(), [])).toBeNull();
  });

  it("refuses a cross-origin POST with a sentence naming the origin and what to do", () => {
    const message = originRefusal("POST", headers("http://evil.example"), []);
    expect(message).toContain('"http://evil.example"');
    expect(message).toMatch(/not this Argus site/);
    expect(message).toMatch(/ALLOWED_ORIGINS/);
    expect(originRefusal("DELETE", headers("null"), [])).not.toBeNull();
  });

  it("the socket handshake is checked whatever its method", () => {
    expect(handshakeOriginRefusal(headers("http://evil.example"), [])).toMatch(/not this Argus site/);
    expect(handshakeOriginRefusal(headers("http://localhost:3000"), [])).toBeNull();
  });
});

describe("trustedOriginsFor (better-auth's list)", () => {
  it("is the configured list, or both schemes of the request's host", () => {
    expect(trustedOriginsFor("localhost:3000", ["https://a.example"])).toEqual(["https://a.example"]);
    expect(trustedOriginsFor("localhost:3000", [])).toEqual(["http://localhost:3000", "https://localhost:3000"]);
    expect(trustedOriginsFor(null, [])).toEqual([]);
  });
});
