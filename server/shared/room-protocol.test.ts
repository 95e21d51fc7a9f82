import { describe, expect, it } from "vitest";
import { clientMessages, MESSAGE_ROLES, SPECTATOR_MESSAGES } from "./room-protocol.ts";

const room = "review:0f8e3a52-6d1b-4c0e-9a57-2b9d3c4e5f61";

describe("client messages", () => {
  it("every message has a payload schema and a role rule", () => {
    expect(Object.keys(MESSAGE_ROLES).sort()).toEqual(Object.keys(clientMessages).sort());
  });

  it("spectators (share links) may send only reads: nothing that writes, votes or steers", () => {
    expect(Object.keys(SPECTATOR_MESSAGES).sort()).toEqual(Object.keys(clientMessages).sort());
    const allowed = Object.entries(SPECTATOR_MESSAGES).flatMap(([m, ok]) => (ok ? [m] : []));
    expect(allowed.sort()).toEqual(["chat.page", "history", "join", "leave"]);
    for (const m of allowed) expect(MESSAGE_ROLES[m as keyof typeof MESSAGE_ROLES]).not.toBe("member");
  });

  it("join defaults afterSeq to 0 and refuses a negative or fractional one", () => {
    expect(clientMessages.join.parse({ room })).toEqual({ room, afterSeq: 0 });
    expect(clientMessages.join.safeParse({ room, afterSeq: -1 }).success).toBe(false);
    expect(clientMessages.join.safeParse({ room, afterSeq: 1.5 }).success).toBe(false);
    expect(clientMessages.history.safeParse({ room }).success).toBe(false);
  });

  it("a payload that is no object, or names no room, is refused", () => {
    for (const bad of [undefined, null, "review:x", [room], { room: 1 }, { room: "chat:x" }])
      expect(clientMessages.leave.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});
