"use client";
/**
 * The replay of a finished review in the page: the pure reducer (server/shared/replay.ts) plus what a
 * browser adds — a clock while playing, the URL following the moment (`?at=<seq>`, replaceState, so
 * the address can be copied; throttled while playing), and the keys (space: play / pause, ← →: step).
 */
import { useCallback, useEffect, useReducer, useRef } from "react";
import {
  type ReplayAction,
  type ReplayEvent,
  type ReplayState,
  initReplay,
  replayReducer,
  replaySeq,
} from "@/server/shared/replay.ts";

const TICK_MS = 50;
/** While playing, the address is updated at most this often (browsers throttle replaceState). */
const URL_EVERY_MS = 500;

function withAt(seq: number): string {
  const url = new URL(window.location.href);
  url.searchParams.set("at", String(seq));
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Keys typed into a field, or Space on a button or link, are theirs, not the replay's. */
function keyBelongsToTarget(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t || !(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  const tag = t.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    // The slider handles its own arrow keys; Space on it still plays / pauses.
    return (t as HTMLInputElement).type !== "range" || e.key !== " ";
  }
  if (e.key === " " && (tag === "BUTTON" || tag === "A" || tag === "SUMMARY" || t.getAttribute("role") === "button"))
    return true;
  return false;
}

export function useReplay(events: readonly ReplayEvent[] | null, initialAt: number | undefined) {
  const [state, dispatch] = useReducer(
    (
      s: ReplayState | null,
      a: Parameters<typeof replayReducer>[1] | { type: "init"; events: readonly ReplayEvent[] },
    ) => (a.type === "init" ? initReplay(a.events, initialAt) : s && replayReducer(s, a)),
    null,
  );

  const loaded = useRef(false);
  // The log arrives (first the whole of it, then whatever the room adds).
  useEffect(() => {
    if (!events) return;
    dispatch(loaded.current ? { type: "load", events } : { type: "init", events });
    loaded.current = true;
  }, [events]);

  const playing = !!state?.playing;
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      dispatch({ type: "tick", ms: now - last });
      last = now;
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [playing]);

  // What the reader does (as opposed to the log growing): from then on the address follows the moment.
  const touched = useRef(false);
  const act = useCallback((a: ReplayAction) => {
    touched.current = true;
    dispatch(a);
  }, []);

  const seq = state ? replaySeq(state) : null;
  const lastWrite = useRef(0);
  useEffect(() => {
    if (seq === null || !touched.current) return;
    const write = () => {
      lastWrite.current = performance.now();
      // null state: Next's router keeps its own and updates useSearchParams (its documented way).
      window.history.replaceState(null, "", withAt(seq));
    };
    const wait = playing ? URL_EVERY_MS - (performance.now() - lastWrite.current) : 0;
    if (wait <= 0) {
      write();
      return;
    }
    const timer = setTimeout(write, wait);
    return () => clearTimeout(timer);
  }, [seq, playing]);

  const ready = !!state;
  useEffect(() => {
    if (!ready) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || keyBelongsToTarget(e)) return;
      if (e.key === " ") act({ type: "toggle" });
      else if (e.key === "ArrowRight") act({ type: "step", by: 1 });
      else if (e.key === "ArrowLeft") act({ type: "step", by: -1 });
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [ready, act]);

  return { state, dispatch: act };
}
