"use client";
/**
 * A run room's log folded into its trace, cheaply while it streams: only the events that arrived
 * since the last fold are folded (foldTrace continues from the previous trace), and the arrivals of
 * one animation frame are folded together — a run of 1,000 items whose events come in bursts
 * re-renders the trace at most once a frame, never once per event.
 */
import { useEffect, useRef, useState } from "react";
import type { RoomEvent } from "@/server/shared/room-events.ts";
import { emptyTrace, foldTrace, type RunTrace } from "@/server/shared/run-trace.ts";

export function useRunTrace(events: readonly RoomEvent<"run">[]): RunTrace {
  const [trace, setTrace] = useState<RunTrace>(() => foldTrace(events));
  const folded = useRef({ count: events.length, lastSeq: events.at(-1)?.seq ?? 0, trace });
  const latest = useRef(events);
  latest.current = events;
  const frame = useRef<number | null>(null);

  useEffect(() => {
    if (frame.current !== null) return; // a fold is already due this frame: it reads the latest log
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      const now = latest.current;
      const f = folded.current;
      // The log grew at its end: fold only what is new. Anything else (another room, a log cut to
      // its newest events): fold it all again.
      const grew = now.length >= f.count && (f.count === 0 || now[f.count - 1]?.seq === f.lastSeq);
      if (grew && now.length === f.count) return;
      const next = grew ? foldTrace(now.slice(f.count), f.trace) : foldTrace(now, emptyTrace());
      folded.current = { count: now.length, lastSeq: now.at(-1)?.seq ?? 0, trace: next };
      if (next !== f.trace) setTrace(next);
    });
  }, [events]);

  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
    },
    [],
  );
  return trace;
}
