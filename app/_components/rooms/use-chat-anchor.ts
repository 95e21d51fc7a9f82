"use client";
/**
 * A link to a chat message (`#chat-<id>`, e.g. from the inbox) lands on it: messages arrive over the
 * socket after the page has loaded, so the browser's own jump to the anchor finds nothing. Once the
 * message is shown, it is scrolled into view and marked for a moment; once per hash. The rest of the
 * page keeps loading meanwhile (the activity log, a virtual list measuring the row a thread grew), so
 * for a few seconds it is brought back into view whenever it slips out — until the reader scrolls,
 * types or clicks themselves.
 */
import { useEffect, useRef } from "react";
import { chatAnchor } from "@/server/shared/notifications.ts";

/** How long the message is kept in view while the page settles. */
const SETTLE_MS = 5000;
const CHECK_MS = 200;
const READER_MOVES = ["wheel", "touchmove", "keydown", "mousedown"] as const;

function outOfView(el: HTMLElement): boolean {
  const r = el.getBoundingClientRect();
  return r.bottom > window.innerHeight || r.top < 0;
}

export function useChatAnchor(messages: readonly { id: string }[]): void {
  const done = useRef<string | null>(null);
  // The settling outlives re-renders (new messages arrive meanwhile): it ends by itself or on unmount.
  const settling = useRef<(() => void) | null>(null);
  useEffect(() => () => settling.current?.(), []);
  useEffect(() => {
    const hash = decodeURIComponent(window.location.hash.slice(1));
    if (!hash || done.current === hash || !messages.some((m) => chatAnchor(m.id) === hash)) return;
    const el = document.getElementById(hash);
    if (!el) return;
    done.current = hash;
    settling.current?.();
    // Block bodies: scrollIntoView may return a Promise (docs/architecture.md).
    const scroll = () => {
      el.scrollIntoView({ block: "center" });
    };
    scroll();
    el.setAttribute("data-highlight", "true");
    const started = Date.now();
    const keep = setInterval(() => {
      if (Date.now() - started > SETTLE_MS) stopFollowing();
      else if (el.isConnected && outOfView(el)) scroll();
    }, CHECK_MS);
    const unmark = setTimeout(() => el.removeAttribute("data-highlight"), SETTLE_MS);
    function stopFollowing() {
      clearInterval(keep);
      for (const e of READER_MOVES) window.removeEventListener(e, stopFollowing, true);
    }
    for (const e of READER_MOVES) window.addEventListener(e, stopFollowing, true);
    settling.current = () => {
      stopFollowing();
      clearTimeout(unmark);
    };
  }, [messages]);
}

export { chatAnchor };
