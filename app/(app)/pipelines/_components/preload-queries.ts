/**
 * Server components of the pipeline pages name the API reads the page will make at once, so the
 * browser fetches them while it is still loading the page's scripts (`<link rel="preload"
 * as="fetch">` in the HTML head): when the client's tRPC query asks, the answer is already there or
 * on its way, not one round trip (and, for the page's own data, a second one after the shell's
 * `account.me`) after hydration. bench/pipeline-ui.ts measured the chain this replaces.
 *
 * A preload is only used when the later request is the same: same URL (tRPC's httpLink puts a
 * query's input as JSON in `?input=`, unbatched: app/_lib/trpc.ts), GET, and the credentials mode of
 * `fetch()` (same-origin: `crossOrigin: "anonymous"`). A preload the page does not use costs one
 * request and a console warning, nothing else: the query then fetches as before.
 */
import { preload } from "react-dom";

/** The GET URL tRPC's httpLink uses for a query (`input` undefined: none). */
export function trpcQueryUrl(path: string, input?: unknown): string {
  return `/api/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;
}

/** The signed-in shell's own first read (app/(app)/layout.tsx: `account.me`), then the page's. */
export function preloadQueries(...queries: { path: string; input?: unknown }[]): void {
  for (const q of [{ path: "account.me" }, ...queries])
    preload(trpcQueryUrl(q.path, q.input), { as: "fetch", crossOrigin: "anonymous" });
}
