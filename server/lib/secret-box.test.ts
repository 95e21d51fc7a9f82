import { describe, expect, it } from "vitest";
import { createSecretBox } from "./secret-box.ts";

describe("secret box", () => {
  const box = createSecretBox("s".repeat(40), "provider-keys");

  it("round-trips, and the sealed form does not contain the secret", () => {
    const sealed = box.seal("sk-ant-very-secret-1234");
    expect(sealed).not.toContain("very-secret");
    expect(box.open(sealed)).toBe("sk-ant-very-secret-1234");
    expect(box.seal("x")).not.toBe(box.seal("x")); // fresh IV each time
  });

  it("refuses ciphertext sealed under another secret or purpose, or tampered with", () => {
    const sealed = box.seal("sk-1");
    expect(() => createSecretBox("t".repeat(40), "provider-keys").open(sealed)).toThrow(/AUTH_SECRET changed/);
    expect(() => createSecretBox("s".repeat(40), "git-tokens").open(sealed)).toThrow(/cannot be decrypted/);
    const parts = sealed.split(".");
    parts[3] = Buffer.from("tampered").toString("base64url");
    expect(() => box.open(parts.join("."))).toThrow(/cannot be decrypted/);
    expect(() => box.open("plaintext")).toThrow(/unknown format/);
  });
});
