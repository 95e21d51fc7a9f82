/** Validation of relative paths that come from outside: archive entry names, uploaded file paths. */
import path from "node:path";
import { ingestError, quote } from "./errors.ts";

const MAX_SEGMENT_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/**
 * Returns the path as clean posix segments ("a/b.ts"), or throws unsafe_path: NUL and other control
 * characters, absolute paths (/x, C:\x), any ".." segment, names too long for a filesystem.
 * Backslashes count as separators, so "..\\x" is caught too. `what` names the thing in the message
 * ("archive entry", "uploaded file path").
 */
export function safeRelativePath(raw: string, what: string): string {
  const refuse = (why: string, escapes = false) =>
    ingestError(
      "unsafe_path",
      `The ${what} ${quote(raw)} ${why}; ${escapes ? "Argus refuses paths that could reach outside the snapshot" : "rename it and try again"}.`,
    );
  if (raw.includes("\0")) throw refuse("contains a NUL byte", true);
  // Newlines and other control characters in names break line-based tools and logs downstream.
  if (/[\x01-\x1f\x7f]/.test(raw)) throw refuse("contains control characters");
  const p = raw.replace(/\\/g, "/");
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) throw refuse("is an absolute path", true);
  const parts = p.split("/").filter((s) => s !== "" && s !== ".");
  if (parts.includes("..")) throw refuse('climbs out of its folder with ".."', true);
  if (parts.length === 0) throw refuse("is empty");
  if (parts.some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES) || Buffer.byteLength(p) > MAX_PATH_BYTES) {
    throw refuse("is longer than a filesystem allows");
  }
  return parts.join("/");
}

/** Joins a validated relative path onto root and checks (again) that the result stays inside. */
export function inside(root: string, rel: string): string {
  const abs = path.resolve(root, rel);
  if (abs !== root && !abs.startsWith(root + path.sep)) {
    throw ingestError("unsafe_path", `The path ${quote(rel)} resolves outside the snapshot; refused.`);
  }
  return abs;
}
