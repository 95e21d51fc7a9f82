import { describe, expect, it } from "vitest";
import { agentEventSchema } from "./agent-events.ts";
import { toEnvelope } from "./event-union.ts";
import { roomEventSchemas, roomPayloads } from "./room-events.ts";

describe("room event unions", () => {
  it("one member per event type of the kind; a review room has the agent's events and its own", () => {
    expect(Object.keys(roomPayloads.review)).toEqual(
      expect.arrayContaining([
        "status",
        "token",
        "tool_call",
        "done",
        "review_status",
        "progress",
        "finding_dismissed",
      ]),
    );
    const ok = (kind: keyof typeof roomEventSchemas, e: unknown) => roomEventSchemas[kind].safeParse(e).success;
    expect(ok("review", { type: "review_status", payload: { status: "running" } })).toBe(true);
    expect(ok("review", { type: "status", payload: { phase: "exploring", message: "started", iteration: 0 } })).toBe(
      true,
    );
    expect(ok("review", { type: "progress", payload: { fraction: 0.5, stage: "static" } })).toBe(true);
    expect(ok("kb", { type: "kb.failed", payload: { message: "x" } })).toBe(true);
    expect(ok("run", { type: "token", payload: { text: "a", step: "s", is_final: false } })).toBe(true);
    const end = (tokens: unknown) => ({
      type: "step_end",
      payload: { name: "generation.generate", output: "x", tokens },
    });
    expect(ok("run", end({ input: 12, output: 3 }))).toBe(true);
    expect(ok("run", end(undefined))).toBe(true);
    expect(ok("run", end({ input: -1, output: 3 }))).toBe(false);
    // A pipeline's page carries the team's chat, not a run's trace.
    expect(Object.keys(roomPayloads.pipeline).sort()).toEqual(["chat_message", "chat_reactions"]);
    expect(ok("pipeline", { type: "step_start", payload: { name: "x", depth: 0 } })).toBe(false);
  });

  it("the two status shapes no longer mix: each type has one payload", () => {
    const review = roomEventSchemas.review;
    // The review's status under the agent's type, and the agent's phase under the review's type.
    expect(review.safeParse({ type: "status", payload: { status: "running" } }).success).toBe(false);
    expect(
      review.safeParse({ type: "review_status", payload: { phase: "exploring", message: "m", iteration: 0 } }).success,
    ).toBe(false);
    // done carries the loop's stop reason; the old `type: undefined, status` shape is not a done.
    expect(review.safeParse({ type: "done", payload: { status: "completed" } }).success).toBe(false);
  });

  it("refuses events of another kind and unknown types, naming the problem", () => {
    const r = roomEventSchemas.review.safeParse({ type: "kb.progress", payload: {} });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["type"]);
    expect(roomEventSchemas.project.safeParse({ type: "token", payload: { text: "x" } }).success).toBe(false);
    expect(
      roomEventSchemas.review.safeParse({ type: "token", payload: { text: 1, phase: "exploring" } }).error?.issues[0]
        ?.path,
    ).toEqual(["payload", "text"]);
  });

  it("the agent's flat events and a review room's envelopes come from one map", () => {
    const flat = { type: "tool_call", id: "c1", name: "grep", input: { pattern: "x" }, iteration: 2 } as const;
    expect(agentEventSchema.parse(flat)).toEqual(flat);
    const envelope = toEnvelope(flat);
    expect(envelope).toEqual({
      type: "tool_call",
      payload: { id: "c1", name: "grep", input: { pattern: "x" }, iteration: 2 },
    });
    expect(roomEventSchemas.review.parse(envelope)).toEqual(envelope);
    expect(agentEventSchema.safeParse({ type: "review_status", status: "running" }).success).toBe(false);
  });
});
