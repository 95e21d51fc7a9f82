import { describe, expect, it } from "vitest";
import { parseUnifiedDiff } from "./diff-lines.ts";

describe("parseUnifiedDiff", () => {
  it("numbers lines from the hunk header and keeps file headers apart", () => {
    const lines = parseUnifiedDiff("--- a/x.py\n+++ b/x.py\n@@ -10,2 +10,2 @@\n keep\n-old\n+new\n");
    expect(lines.map((l) => l.kind)).toEqual(["meta", "meta", "hunk", "same", "del", "add"]);
    expect(lines[3]).toEqual({ kind: "same", text: "keep", old: 10, new: 10 });
    expect(lines[4]).toEqual({ kind: "del", text: "old", old: 11 });
    expect(lines[5]).toEqual({ kind: "add", text: "new", new: 11 });
  });

  it("leaves a diff without hunk headers unnumbered", () => {
    const lines = parseUnifiedDiff("-a\n+b");
    expect(lines).toEqual([
      { kind: "del", text: "a" },
      { kind: "add", text: "b" },
    ]);
  });
});
