/**
 * Which link targets user-written Markdown may keep: http(s) and mailto, and paths inside the app.
 * Everything else (javascript:, data:, vbscript:, file:, protocol-relative //host …) is dropped.
 */
export function safeLinkUrl(url: string): string | null {
  const value = url.trim();
  // Inside the app: /projects/…, but not //evil.example (a protocol-relative URL leaves the app).
  if (value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) return value;
  if (value.startsWith("#")) return value;
  // Control characters and whitespace inside a scheme are how "java\tscript:" slips past naive checks.
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https" || scheme === "mailto") return value;
  return null;
}
