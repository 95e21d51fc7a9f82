import { describe, expect, it } from "vitest";
import {
  kbRoom,
  parseRoom,
  pipelineRoom,
  projectRoom,
  reviewRoom,
  roomName,
  roomNameSchema,
  runRoom,
} from "./rooms.ts";

const uid = "0f8e3a52-6d1b-4c0e-9a57-2b9d3c4e5f61";

describe("room names", () => {
  it("are built and parsed in one place, for every kind", () => {
    expect([reviewRoom(uid), projectRoom(uid), runRoom(uid), kbRoom(uid), pipelineRoom(uid)]).toEqual([
      `review:${uid}`,
      `project:${uid}`,
      `run:${uid}`,
      `kb:${uid}`,
      `pipeline:${uid}`,
    ]);
    expect(parseRoom(`project:${uid}`)).toEqual({ kind: "project", uid, name: `project:${uid}` });
    // Canonical form: lower case, so REVIEW:ABC… and review:abc… are one room.
    expect(parseRoom(`REVIEW:${uid.toUpperCase()}`)?.name).toBe(`review:${uid}`);
  });

  it("refuse what names no room", () => {
    for (const bad of [
      "",
      "review:",
      `chat:${uid}`,
      `review:${uid}x`,
      `review:${"-".repeat(36)}`,
      `review:${uid}:extra`,
      ["review", uid],
      42,
      null,
    ])
      expect(parseRoom(bad), JSON.stringify(bad)).toBeNull();
    expect(() => roomName("review", "../../etc")).toThrow(/Not a uid/);
  });

  it("the schema for client messages names the rule and canonicalizes", () => {
    expect(roomNameSchema.parse(`KB:${uid}`)).toBe(`kb:${uid}`);
    const r = roomNameSchema.safeParse("review:1");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(
      "a room is review:<uid>, project:<uid>, run:<uid>, kb:<uid>, pipeline:<uid> or prompt:<uid>",
    );
    expect(roomNameSchema.safeParse("x".repeat(65)).success).toBe(false);
  });
});
