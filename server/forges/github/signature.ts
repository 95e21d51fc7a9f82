/**
 * X-Hub-Signature-256 against a list of webhook secrets (the workspaces' own GitHub Apps, when this
 * Argus has none from its environment): HMAC-SHA256 of the raw body, compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** Whether the signature is `sha256=<hex>` of the payload under this secret. */
export function signatureMatches(secret: string, payload: string, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
