/**
 * The hidden marker at the end of every comment Argus writes on a forge: an HTML comment naming the
 * finding's fingerprint (inline comments) or the summary. Forges render Markdown without it, and it
 * lets Argus tell its own comments — and which finding each is about — from everyone else's.
 */
const MARKER = /<!-- argus:finding=([A-Za-z0-9_:.-]{1,200}) -->\s*$/;
export const SUMMARY_MARKER = "<!-- argus:summary -->";

export function withMarker(body: string, fingerprint: string): string {
  return `${body}\n\n<!-- argus:finding=${fingerprint} -->`;
}

export function fingerprintOf(body: string): string | null {
  return MARKER.exec(body)?.[1] ?? null;
}
