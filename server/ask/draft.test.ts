import { describe, expect, it } from "vitest";
import type { Citation } from "../shared/ask.ts";
import { draftFinding, staticLineFinding, titleFrom } from "./draft.ts";

const ok = (path: string, line: number, endLine = line): Citation => ({ path, line, endLine, status: "ok" });

describe("draftFinding", () => {
  const text = "Passwords are hashed with MD5 at src/server.js:31-33. That is too weak for passwords.";

  it("takes file and lines from the first existing citation, severity and category from a finding on them", () => {
    const d = draftFinding({
      text,
      citations: [{ ...ok("src/gone.js", 1), status: "missing_file" }, ok("src/server.js", 31, 33)],
      known: [{ file: "src/server.js", startLine: 32, endLine: 32, severity: "critical", category: "security" }],
    });
    expect(d).toMatchObject({
      file: "src/server.js",
      startLine: 31,
      endLine: 33,
      severity: "critical",
      category: "security",
      title: "Passwords are hashed with MD5 at src/server.js:31-33.",
    });
  });

  it("guesses from the words when no finding is on the lines, and prefers a selection's own citation", () => {
    const d = draftFinding({
      text: "The loop at src/b.js:4 is slow.",
      citations: [ok("src/server.js", 31, 33), ok("src/b.js", 4)],
      known: [],
    });
    expect(d).toMatchObject({ file: "src/b.js", startLine: 4, category: "performance", severity: "medium" });
  });

  it("has no draft without a citation that exists", () => {
    expect(draftFinding({ text, citations: [], known: [] })).toBeNull();
  });

  it("titles from the first sentence, without Markdown, shortened", () => {
    expect(titleFrom("**Bold** claim here. More.")).toBe("Bold claim here.");
    expect(titleFrom("x".repeat(300))).toHaveLength(118);
  });
});

describe("a static finding on the cited lines", () => {
  it("gives the draft the category its review finding has, not one guessed from the words", () => {
    const known = [
      staticLineFinding({
        file: "src/app.js",
        startLine: 10,
        endLine: 12,
        severity: "high",
        tool: "argus",
        ruleId: "tls/reject-unauthorized",
      }),
    ];
    // No word of the answer (or of the rule) reads as security, yet a TLS rule's finding is one.
    const d = draftFinding({
      text: "Certificate checks are turned off here.",
      citations: [ok("src/app.js", 11)],
      known,
    });
    expect(d).toMatchObject({ category: "security", severity: "high" });
  });

  it("a ShellCheck finding is a correctness one, whatever the answer says of passwords", () => {
    const known = [
      staticLineFinding({
        file: "run.sh",
        startLine: 3,
        endLine: 3,
        severity: "low",
        tool: "shellcheck",
        ruleId: "SC2086",
      }),
    ];
    const d = draftFinding({ text: "The password variable is unquoted.", citations: [ok("run.sh", 3)], known });
    expect(d).toMatchObject({ category: "correctness", severity: "low" });
  });
});
