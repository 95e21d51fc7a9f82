import { expect, it } from "vitest";
import type { RoomEvent } from "./room-events.ts";
import { foldTeamEvents } from "./team-state.ts";

const room = "review:0f8e3a52-6d1b-4c0e-9a57-2b9d3c4e5f61" as const;
let seq = 0;
const ev = (body: Omit<RoomEvent<"review">, "room" | "seq" | "at">) =>
  ({ ...body, room, seq: ++seq, at: "t" }) as RoomEvent<"review">;
const vote = (name: string, verdict: "real" | "false_positive") => ({ userId: name, name, verdict, duplicateOf: null });

it("the last event of each kind per finding is its state", () => {
  const state = foldTeamEvents([
    ev({ type: "finding_votes", payload: { fingerprint: "a", votes: [vote("x", "real")] } }),
    ev({ type: "thread_count", payload: { fingerprint: "a", count: 1 } }),
    ev({ type: "finding_dismissed", payload: { fingerprint: "b" } }),
    ev({
      type: "finding_votes",
      payload: { fingerprint: "a", votes: [vote("x", "real"), vote("y", "false_positive")] },
    }),
    ev({
      type: "finding_resolved",
      payload: { fingerprint: "a", resolved: true, by: { id: "x", name: "X" }, at: "t1" },
    }),
    ev({ type: "thread_count", payload: { fingerprint: "a", count: 3 } }),
    ev({ type: "finding_restored", payload: { fingerprint: "b" } }),
    ev({ type: "tool_call", payload: { id: "c", name: "grep", input: {}, iteration: 1 } }),
  ]);
  expect(state.get("a")).toEqual({
    votes: [vote("x", "real"), vote("y", "false_positive")],
    resolvedAt: "t1",
    resolvedBy: "X",
    threadCount: 3,
  });
  expect(state.get("b")).toEqual({ dismissed: false });
});
