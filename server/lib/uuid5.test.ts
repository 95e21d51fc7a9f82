import { describe, expect, it } from "vitest";
import { ARGUS_NAMESPACE, uuid5 } from "./uuid5.ts";

const DNS_NAMESPACE = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";

describe("uuid5", () => {
  it("matches the RFC 4122 / Python uuid.uuid5 reference value", () => {
    // python3 -c 'import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, "www.example.com"))'
    expect(uuid5("www.example.com", DNS_NAMESPACE)).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
  });

  it("is deterministic, name-sensitive and well-formed (version 5, RFC variant)", () => {
    const a = uuid5("prompt:ws1:general-review");
    expect(uuid5("prompt:ws1:general-review")).toBe(a);
    expect(uuid5("prompt:ws2:general-review")).not.toBe(a);
    expect(uuid5("prompt:ws1:general-review", DNS_NAMESPACE)).not.toBe(a);
    expect(uuid5("prompt:ws1:general-review", ARGUS_NAMESPACE)).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
