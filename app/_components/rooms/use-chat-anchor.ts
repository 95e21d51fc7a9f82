"use client";
/**
 * A link to a chat message (`#chat-<id>`, e.g. from the inbox) lands on it: messages arrive over the
 * socket after the page has loaded, so the browser's own jump to the anchor finds nothing. Once the
 * message is shown, it is scrolled into view and marked for a moment; once per hash.
 */
import { useEffect, useRef } from "react";
import { chatAnchor } from "@/server/shared/notifications.ts";

export function useChatAnchor(messages: readonly { id: string }[]): void {
  const done = useRef<string | null>(null);
  useEffect(() => {
    const hash = decodeURIComponent(window.location.hash.slice(1));
    if (!hash || done.current === hash || !messages.some((m) => chatAnchor(m.id) === hash)) return;
    const el = document.getElementById(hash);
    if (!el) return;
    done.current = hash;
    // Block bodies: scrollIntoView may return a Promise (docs/architecture.md).
    const scroll = () => {
      el.scrollIntoView({ block: "center" });
    };
    scroll();
    el.setAttribute("data-highlight", "true");
    // The page may still be settling (a virtual list measuring the row this thread grew): again, twice.
    const timers = [setTimeout(scroll, 300), setTimeout(scroll, 1000)];
    const unmark = setTimeout(() => el.removeAttribute("data-highlight"), 4000);
    return () => [...timers, unmark].forEach(clearTimeout);
  }, [messages]);
}

export { chatAnchor };
