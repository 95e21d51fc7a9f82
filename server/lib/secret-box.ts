/**
 * Encryption at rest for secrets Argus must be able to read back (provider API keys, later git
 * tokens): AES-256-GCM with a key derived (HKDF-SHA256) from the instance's AUTH_SECRET and a
 * purpose label, so one purpose's ciphertext is useless for another. Format: v1.<iv>.<tag>.<data>.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(secret: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", secret, "argus", `argus:${purpose}`, 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), data]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || data === undefined)
        throw new Error("Not a sealed secret (unknown format).");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      try {
        return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new Error("This secret cannot be decrypted: AUTH_SECRET changed since it was saved. Enter it again.");
      }
    },
  };
}
