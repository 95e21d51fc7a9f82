/**
 * A request path in the one spelling that every layer behind us could end up routing it to:
 * percent-decoded (repeatedly, so %252e is caught too), backslashes as slashes, dot segments resolved,
 * runs of slashes collapsed, lower-cased, no trailing slash, no query. Path checks that guard a route
 * compare this form, so `/api/auth/%2e/Sign-Up//email/` cannot slip past a prefix test on the raw
 * text. It is for checks only; routes still receive the request as sent.
 */
import path from "node:path";

const MAX_DECODE_ROUNDS = 5;

function decodeFully(text: string): string {
  let current = text;
  for (let i = 0; i < MAX_DECODE_ROUNDS; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      // A stray "%" (malformed escape): decode the well-formed escapes around it and stop.
      next = current.replace(/%[0-9a-f]{2}/gi, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

export function normalizedPath(rawUrl: string): string {
  const withoutQuery = rawUrl.split(/[?#]/, 1)[0]!;
  const decoded = decodeFully(withoutQuery).replace(/\\/g, "/");
  const resolved = path.posix.normalize(`/${decoded}`).toLowerCase();
  return resolved.length > 1 ? resolved.replace(/\/+$/, "") : resolved;
}

/** True when `rawUrl` names `prefix` or something under it, in any spelling (see normalizedPath). */
export function pathIsUnder(rawUrl: string, prefix: string): boolean {
  const p = normalizedPath(rawUrl);
  return p === prefix || p.startsWith(`${prefix}/`);
}
