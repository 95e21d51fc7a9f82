/**
 * Where to go after signing in (`?next=`): a path on this site, or "/". The value comes from a link
 * anyone can craft, so everything a browser might read as another site is refused: protocol-relative
 * `//evil`, backslash forms (`/\evil`, `\/evil` — browsers treat `\` as `/`), encoded slashes that a
 * router could decode into those (`/%2F%2Fevil`), control characters (browsers drop tabs and
 * newlines inside URLs, so `/\t/evil` is `//evil`), schemes (`javascript:`) and absolute URLs.
 */
const BASE = "http://argus.invalid";

export function safeNextPath(next: string | null | undefined): string {
  if (!next || next.length > 2000) return "/";
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  if (!next.startsWith("/") || next.startsWith("//")) return "/";
  let url: URL;
  let decodedPath: string;
  try {
    url = new URL(next, BASE);
    decodedPath = decodeURIComponent(url.pathname);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  if (decodedPath.startsWith("//") || decodedPath.includes("\\")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
