import { describe, expect, it } from "vitest";
import { verdictOfText } from "./feedback.ts";
import { linkCodeRefs } from "./mentions.ts";

describe("a PR reply's verdict", () => {
  it("is read from what the reply says, and nothing else is one", () => {
    expect(verdictOfText("This is a false positive: the key is a test fixture.")).toBe("false_positive");
    expect(verdictOfText("Not a bug, the input is validated upstream")).toBe("false_positive");
    expect(verdictOfText("We won’t fix this in this PR")).toBe("wont_fix");
    expect(verdictOfText("Good catch!")).toBe("real");
    expect(verdictOfText("Why does this matter?")).toBeNull();
    expect(verdictOfText("duplicate of the one above")).toBeNull();
  });
});

describe("an answer's references on the forge", () => {
  it("become links to the lines, except inside code spans", () => {
    const link = (f: string, l: number, e?: number) => `https://gh/blob/abc/${f}#L${l}${e ? `-L${e}` : ""}`;
    expect(linkCodeRefs("See src/app.py:3-4 and `src/x.py:1`.", link)).toBe(
      "See [src/app.py:3-4](https://gh/blob/abc/src/app.py#L3-L4) and `src/x.py:1`.",
    );
  });
});
