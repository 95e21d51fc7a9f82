/** RFC 4122 version-5 (name-based, SHA-1) UUIDs: the same name always gives the same id. */
import { createHash } from "node:crypto";

/** Namespace for Argus's deterministic ids (itself a v4 UUID picked once). */
export const ARGUS_NAMESPACE = "6f1c8a52-3d7e-4b8f-9a21-5c0e7d4b3f10";

export function uuid5(name: string, namespace = ARGUS_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ""), "hex");
  const bytes = createHash("sha1").update(ns).update(name, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
