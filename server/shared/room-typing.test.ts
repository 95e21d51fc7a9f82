import { describe, expect, it } from "vitest";
import {
  describeTyping,
  nextExpiry,
  TYPING_EXPIRES_MS,
  typingAt,
  typingSignal,
  typingStopped,
  type TypingRoster,
} from "./room-typing.ts";

const ann = { id: "u-ann", name: "Ann" };
const max = { id: "u-max", name: "Max" };
const names = (r: TypingRoster) => [...r.values()].map((t) => t.name);

describe("the typing roster", () => {
  it("shows a person until their signal expires; a new signal extends it", () => {
    let r: TypingRoster = new Map();
    r = typingSignal(r, ann, 1000);
    expect(names(typingAt(r, 1000 + TYPING_EXPIRES_MS - 1))).toEqual(["Ann"]);
    expect(names(typingAt(r, 1000 + TYPING_EXPIRES_MS))).toEqual([]);
    r = typingSignal(r, ann, 3000);
    expect(names(typingAt(r, 1000 + TYPING_EXPIRES_MS))).toEqual(["Ann"]);
    expect(nextExpiry(r)).toBe(3000 + TYPING_EXPIRES_MS);
  });

  it("drops a person when their message arrives, and keeps the others", () => {
    let r: TypingRoster = typingSignal(typingSignal(new Map(), ann, 0), max, 500);
    r = typingStopped(r, ann.id);
    expect(names(r)).toEqual(["Max"]);
    expect(nextExpiry(r)).toBe(500 + TYPING_EXPIRES_MS);
    // Nothing to drop: the same roster (no re-render).
    expect(typingStopped(r, ann.id)).toBe(r);
    expect(typingAt(r, 600)).toBe(r);
    expect(nextExpiry(new Map())).toBeNull();
  });
});

describe("describeTyping", () => {
  it("names one, two or three people and counts more", () => {
    expect(describeTyping([])).toBe("");
    expect(describeTyping(["Ann"])).toBe("Ann is typing…");
    expect(describeTyping(["Ann", "Max"])).toBe("Ann and Max are typing…");
    expect(describeTyping(["Ann", "Max", "Bo"])).toBe("Ann, Max and Bo are typing…");
    expect(describeTyping(["Ann", "Max", "Bo", "Cy"])).toBe("4 people are typing…");
  });
});
