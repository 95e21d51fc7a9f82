"use client";
/** Puts a new query string in the address in place (no history entry, no scroll): the pipeline pages keep their state there. */
import { usePathname, useRouter } from "next/navigation";
import { useCallback } from "react";

export function useReplaceQuery(): (params: URLSearchParams) => void {
  const router = useRouter();
  const pathname = usePathname();
  return useCallback(
    (params: URLSearchParams) => {
      const qs = params.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [pathname, router],
  );
}
