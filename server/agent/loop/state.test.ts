/** startRun, the run's helpers, and finish: what a run starts from and how it reports its end. */
import { describe, expect, it } from "vitest";
import { finish, stopped } from "./finish.ts";
import { DEFAULT_MAX_ITERATIONS, emit, note } from "./state.ts";
import { Stop } from "./stop.ts";
import { ofType, useScriptedRuns } from "./test-support.ts";

const llm = useScriptedRuns();

describe("startRun", () => {
  it("fills in the defaults and opens the conversation after a copy of the history", () => {
    const history = [
      { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "Hello." }] },
    ];
    const { run } = llm.start([], { history });
    expect(run).toMatchObject({
      phase: "exploring",
      maxIterations: DEFAULT_MAX_ITERATIONS,
      maxRepairs: 2,
      maxRecoveries: 2,
      finalReserve: 4096,
      reserve: { tokens: 0, usd: 0 },
    });
    expect(run.defs.map((d) => d.name)).toEqual(["read_file", "list_dir"]);
    expect(run.state).toMatchObject({ iterations: 0, requests: 0, repairs: 0, costUsd: 0, notes: [] });
    expect(run.state.messages).toHaveLength(3);
    expect(run.state.messages[2]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Review scope: the whole project." }],
    });
    expect(history).toHaveLength(2);
  });

  it("merges the first message into a history that ends with the user, so roles keep alternating", () => {
    const { run } = llm.start([], { history: [{ role: "user", content: [{ type: "text", text: "earlier" }] }] });
    expect(run.state.messages).toHaveLength(1);
    expect(run.state.messages[0]!.content.map((b) => (b.type === "text" ? b.text : ""))).toEqual([
      "earlier",
      "Review scope: the whole project.",
    ]);
  });

  it("survives a failing listener and keeps each note once", () => {
    const { run } = llm.start([], {
      onEvent: () => {
        throw new Error("bus down");
      },
    });
    expect(() => emit(run, { type: "status", phase: "exploring", message: "x", iteration: 0 })).not.toThrow();
    note(run, "a");
    note(run, "a");
    expect(run.state.notes).toEqual(["a"]);
  });
});

describe("finish", () => {
  it("builds the outcome from the state and emits the error, then done, last", () => {
    const { run, events } = llm.start([]);
    run.state.iterations = 3;
    note(run, "n");
    const out = finish(run, { stopReason: "invalid_report", answer: "text", error: "No usable ANSWER" });
    expect(out).toEqual({
      iterations: 3,
      usage: run.state.usage,
      costUsd: 0,
      notes: ["n"],
      stopReason: "invalid_report",
      messages: run.state.messages,
      answer: "text",
      error: "No usable ANSWER",
    });
    expect(out.usage).not.toBe(run.state.usage); // a snapshot, not the live totals
    expect(run.state.stopReason).toBe("invalid_report");
    expect(events.map((e) => e.type)).toEqual(["error", "done"]);
    expect(ofType(events, "done")[0]).toEqual({
      type: "done",
      stopReason: "invalid_report",
      iterations: 3,
      notes: ["n"],
    });
  });

  it("maps a Stop: cancelled carries no error, a failure its message", () => {
    expect(stopped(new Stop("cancelled", "cancelled"))).toEqual({ stopReason: "cancelled" });
    expect(stopped(new Stop("error", "rate limited"))).toEqual({ stopReason: "error", error: "rate limited" });
    const { run, events } = llm.start([]);
    finish(run, stopped(new Stop("cancelled", "cancelled")));
    expect(events.map((e) => e.type)).toEqual(["done"]);
  });
});
