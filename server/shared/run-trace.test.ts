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

  it("keeps each step's model tokens and their total; steps without requests have none", () => {
    const t = foldTrace([
      ev("step_start", { name: "prompt.qa_boxed", depth: 0 }, "2026-01-01T00:00:00.000Z"),
      ev("step_end", { name: "prompt.qa_boxed", output: "1 prompt" }, "2026-01-01T00:00:00.010Z"),
      ev("step_start", { name: "generation.generate", depth: 0 }, "2026-01-01T00:00:00.020Z"),
      ev(
        "step_end",
        { name: "generation.generate", output: "Generated", tokens: { input: 120, output: 30 } },
        "2026-01-01T00:00:00.500Z",
      ),
      ev("step_start", { name: "generation.generate", depth: 0 }, "2026-01-01T00:00:00.600Z"),
      ev(
        "step_end",
        { name: "generation.generate", output: "Generated", tokens: { input: 80, output: 5 } },
        "2026-01-01T00:00:00.900Z",
      ),
    ]);
    expect(t.steps.map((s) => s.usage)).toEqual([null, { input: 120, output: 30 }, { input: 80, output: 5 }]);
    expect(t.usage).toEqual({ input: 200, output: 35 });
    expect(foldTrace([]).usage).toBeNull();
  });

  it("folding a long log in batches gives the trace folding it at once gives, leaving earlier traces as they were", () => {
    const events: RoomEvent<"run">[] = [];
    for (let i = 0; i < 300; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i * 10)).toISOString();
      events.push(ev("step_start", { name: `s.t${i % 7}`, depth: i % 2 }, at));
      events.push(ev("token", { text: `x${i}`, step: `s.t${i % 7}`, is_final: false }, at));
      events.push(ev("step_end", { name: `s.t${i % 7}`, output: `out ${i}`, tokens: { input: i, output: 1 } }, at));
    }
    const whole = foldTrace(events);
    let batched = foldTrace([]);
    for (let i = 0; i < events.length; i += 37) {
      const before = batched;
      const frozen = JSON.stringify(before);
      batched = foldTrace(events.slice(i, i + 37), before);
      expect(JSON.stringify(before)).toBe(frozen);
    }
    expect(batched).toEqual(whole);
    expect(whole.ended).toBe(300);
    expect(whole.usage).toEqual({ input: (299 * 300) / 2, output: 300 });
  });
});
