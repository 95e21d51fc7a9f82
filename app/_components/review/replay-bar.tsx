"use client";
/**
 * The scrubber of a finished review's replay: play / pause, speed, a slider over the events, jumps to
 * the next tool call and the next finding, and where the moment is (event n of N, play time). The
 * state and every rule live in server/shared/replay.ts; this only shows it and dispatches.
 */
import { FastForward, Pause, Play, SkipForward, Wrench } from "lucide-react";
import type { Dispatch } from "react";
import {
  type ReplayAction,
  type ReplaySpeed,
  type ReplayState,
  REPLAY_SPEEDS,
  atReplayEnd,
  initReplay,
  nextIndexOf,
  replaySeq,
  replayTimes,
} from "@/server/shared/replay.ts";
import { Button, Card, cx } from "../ui.tsx";

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

const EMPTY = initReplay([]);

/** `state` null: the log is still being read — the bar holds its place, its controls off until it is. */
export function ReplayBar({ state: given, dispatch }: { state: ReplayState | null; dispatch: Dispatch<ReplayAction> }) {
  const loading = given === null;
  const state = given ?? EMPTY;
  const n = state.events.length;
  const { now, total } = replayTimes(state);
  const seq = replaySeq(state);
  const end = atReplayEnd(state);
  const where = end ? "the end" : state.pos === 0 ? "the start" : `event ${state.pos} of ${n}`;
  return (
    <Card className="mb-4 p-3">
      <div role="toolbar" aria-label="Replay" className="flex flex-wrap items-center gap-2">
        <Button
          variant="secondary"
          onClick={() => dispatch({ type: "toggle" })}
          disabled={n === 0}
          aria-label={state.playing ? "Pause replay" : "Play replay"}
          title="Space"
        >
          {state.playing ? <Pause className="size-3.5" aria-hidden /> : <Play className="size-3.5" aria-hidden />}
          {state.playing ? "Pause" : end ? "Replay" : "Play"}
        </Button>
        <div
          role="group"
          aria-label="Replay speed"
          className="flex overflow-hidden rounded-md border border-zinc-300 dark:border-zinc-700"
        >
          {REPLAY_SPEEDS.map((s: ReplaySpeed) => (
            <button
              key={s}
              type="button"
              aria-pressed={state.speed === s}
              disabled={loading}
              onClick={() => dispatch({ type: "speed", speed: s })}
              className={cx(
                "px-2 py-1 text-xs tabular-nums",
                state.speed === s
                  ? "bg-zinc-200 font-semibold dark:bg-zinc-700"
                  : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800",
              )}
            >
              {s}×
            </button>
          ))}
        </div>
        <Button
          variant="ghost"
          onClick={() => dispatch({ type: "next", kind: "tool_call" })}
          disabled={nextIndexOf(state, "tool_call") < 0}
        >
          <Wrench className="size-3.5" aria-hidden /> Next tool call
        </Button>
        <Button
          variant="ghost"
          onClick={() => dispatch({ type: "next", kind: "finding" })}
          disabled={nextIndexOf(state, "finding") < 0}
        >
          <SkipForward className="size-3.5" aria-hidden /> Next finding
        </Button>
        {!end && (
          <Button variant="ghost" onClick={() => dispatch({ type: "seek", pos: n })}>
            <FastForward className="size-3.5" aria-hidden /> End
          </Button>
        )}
        <p className="ml-auto text-xs tabular-nums text-zinc-500" aria-live="off" data-replay-seq={seq}>
          {loading ? "Loading the replay…" : `${clock(now)} / ${clock(total)} · ${where}`}
        </p>
      </div>
      <input
        type="range"
        min={0}
        max={n}
        step={1}
        value={state.pos}
        disabled={loading}
        onChange={(e) => dispatch({ type: "seek", pos: Number(e.target.value) })}
        aria-label="Replay position"
        aria-valuetext={`${where}${seq ? `, seq ${seq}` : ""}`}
        className="mt-2 w-full accent-brand-600"
      />
      <p className="sr-only">Space plays or pauses the replay; the left and right arrow keys step one event.</p>
    </Card>
  );
}
