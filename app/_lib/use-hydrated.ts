/**
 * Whether the page has hydrated. False in the server's render and in the browser's first render
 * (which must match the server's HTML), true after. What depends on the browser — its locale, its
 * time zone, its clock — is rendered in its server form until then (e.g. dates in UTC), so the two
 * renders agree and React reports no hydration mismatch; the browser's form follows at once.
 * On a client-side navigation there is no server render, and it is true from the start.
 */
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
