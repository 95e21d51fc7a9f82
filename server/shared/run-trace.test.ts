import { describe, expect, it } from "vitest";
import type { RoomEvent } from "./room-events.ts";
import { foldTrace, stepMs } from "./run-trace.ts";

let seq = 0;
const ev = (type: string, payload: unknown, at: string): RoomEvent<"run"> =>
  ({ room: "run:00000000-0000-4000-8000-000000000000", seq: ++seq, at, type, payload }) as RoomEvent<"run">;

describe("the run trace", () => {
  it("folds steps with their timings, tokens and sources, then the answer", () => {
    const events = [
      ev("step_start", { name: "retriever.bm25_search", depth: 0 }, "2026-01-01T00:00:00.000Z"),
      ev(
        "sources",
        { data: [{ id: 1, title: "Mount…", content: "Mount Everest is high" }] },
        "2026-01-01T00:00:00.100Z",
      ),
      ev("step_end", { name: "retriever.bm25_search", output: "Retrieved 1 documents" }, "2026-01-01T00:00:00.250Z"),
      ev("step_start", { name: "loop", depth: 0 }, "2026-01-01T00:00:00.300Z"),
      ev("step_start", { name: "generation.generate", depth: 1 }, "2026-01-01T00:00:00.300Z"),
      ev("token", { text: "Mount ", step: "generation.generate", is_final: false }, "2026-01-01T00:00:00.400Z"),
      ev("token", { text: "Everest", step: "generation.generate", is_final: false }, "2026-01-01T00:00:00.450Z"),
      ev("step_end", { name: "generation.generate", output: "Generated:\nMount Everest" }, "2026-01-01T00:00:01.300Z"),
      ev(
        "final",
        {
          data: {
            status: "succeeded",
            answer: "Mount Everest",
            dataset_path: null,
            memory_path: null,
            is_first_turn: true,
          },
        },
        "2026-01-01T00:00:01.400Z",
      ),
    ];
    const t = foldTrace(events);
    expect(t.steps.map((s) => [s.name, s.depth])).toEqual([
      ["retriever.bm25_search", 0],
      ["loop", 0],
      ["generation.generate", 1],
    ]);
    expect(t.steps[0]!.sources).toHaveLength(1);
    expect(stepMs(t.steps[0]!)).toBe(250);
    expect(t.steps[1]!.endedAt).toBeNull(); // a loop has no end event
    expect(t.steps[2]).toMatchObject({ tokens: "Mount Everest", tokenEvents: 2, output: "Generated:\nMount Everest" });
    expect(stepMs(t.steps[2]!)).toBe(1000);
    expect(t).toMatchObject({ finished: true, answer: "Mount Everest", error: null, ended: 2 });
  });

  it("folds on from an earlier trace without changing it, and ends on an error", () => {
    const first = foldTrace([ev("step_start", { name: "benchmark.get_data", depth: 0 }, "2026-01-01T00:00:00.000Z")]);
    const next = foldTrace(
      [ev("error", { message: "benchmark.get_data: no file" }, "2026-01-01T00:00:00.010Z")],
      first,
    );
    expect(first.finished).toBe(false);
    expect(next).toMatchObject({ finished: true, error: "benchmark.get_data: no file", answer: null });
    expect(stepMs(next.steps[0]!)).toBeNull();
  });
});
