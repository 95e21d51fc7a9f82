"use client";
/**
 * The findings list's rows: which are open, the virtualizer that renders only the rows in view, and
 * what would otherwise rely on every row being in the DOM — ↑/↓/Home/End move between findings
 * (scrolling the one asked for into view first), and a `?finding=<fingerprint>` link opens that
 * finding and scrolls to it.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from "react";
import type { ReviewFindingRow } from "./types.ts";

export function useFindingsRows(visible: ReviewFindingRow[], linked: string | null | undefined) {
  const [open, setOpen] = useState<Set<string>>(() => new Set(linked ? [linked] : []));
  const scroller = useRef<HTMLDivElement>(null);

  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 58,
    overscan: 8,
    // Before the list is measured (the server's render and the first one in the browser, which must
    // match it) the rows of a 600 px view are rendered, so the findings are in the page's HTML.
    initialRect: { width: 0, height: 600 },
    getItemKey: (i) => visible[i]!.fingerprint,
  });
  // Once per link, when the linked finding is first in the list (findings load after the page): a
  // new link (another "Link to this finding" clicked) opens and scrolls again.
  const linkedAt = linked ? visible.findIndex((f) => f.fingerprint === linked) : -1;
  const handledLink = useRef<string | null>(null);
  useEffect(() => {
    if (!linked || linkedAt < 0 || handledLink.current === linked) return;
    handledLink.current = linked;
    setOpen((prev) => (prev.has(linked) ? prev : new Set(prev).add(linked)));
    // To its offset, not scrollToIndex: that one keeps re-aligning the row while it grows (its thread
    // loading) for seconds, pulling the linked message back out of view.
    const offset = virtualizer.getOffsetForIndex(linkedAt, "start")?.[0];
    if (offset !== undefined) virtualizer.scrollToOffset(offset);
  }, [linked, linkedAt, virtualizer]);

  // Keyboard moves and deep links ask for a row that may not be rendered yet: scroll the virtualizer
  // to it, then focus its toggle once it exists (now, or after the render the scroll causes).
  const pendingFocus = useRef<number | null>(null);
  const focusPending = useCallback(() => {
    const i = pendingFocus.current;
    if (i === null) return;
    const toggleButton = scroller.current?.querySelector<HTMLElement>(`[data-finding-toggle="${i}"]`);
    if (!toggleButton) return;
    pendingFocus.current = null;
    toggleButton.focus({ preventScroll: true });
  }, []);
  useEffect(focusPending);
  const focusRow = (i: number, align: "auto" | "start" = "auto") => {
    virtualizer.scrollToIndex(i, { align });
    pendingFocus.current = i;
    focusPending();
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const at = (e.target as HTMLElement).dataset.findingToggle;
    if (at === undefined || visible.length === 0) return;
    const i = Number(at);
    const next = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: visible.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    focusRow(Math.max(0, Math.min(visible.length - 1, next)));
  };

  const toggle = (fp: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(fp)) next.delete(fp);
      else next.add(fp);
      return next;
    });

  return { open, toggle, scroller, virtualizer, onListKey };
}
