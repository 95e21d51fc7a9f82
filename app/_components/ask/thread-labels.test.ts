import { describe, expect, it } from "vitest";
import { threadLabels } from "./thread-labels.ts";

describe("thread chip labels", () => {
  it("are the titles, with the time asked when two threads share one, so no two chips read the same", () => {
    const labels = threadLabels([
      { id: "a", title: "where are passwords hashed?", createdAt: "2026-12-07T10:00:01Z" },
      { id: "b", title: "where are passwords hashed?", createdAt: "2026-12-07T10:02:09Z" },
      { id: "c", title: "what does the cache do?", createdAt: "2026-12-07T10:03:00Z" },
    ]);
    expect(labels.get("c")).toBe("what does the cache do?");
    expect(labels.get("a")).toMatch(/^where are passwords hashed\? · /);
    expect(new Set(labels.values()).size).toBe(3);
  });
});
