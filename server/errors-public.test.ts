import { describe, expect, it } from "vitest";
import { captureLog } from "../test/helpers/log.ts";
import { ingestError } from "./codebase/ingest/errors.ts";
import { invalid } from "./errors.ts";
import { publicError } from "./errors-public.ts";
import { LlmError } from "./llm/index.ts";
import { StepError } from "./pipelines/engine/execute.ts";
import { ToolError } from "./pipelines/servers/define.ts";
import { TooManyChunksError } from "./knowledge/build.ts";
import { ReviewAgentError } from "./review/index.ts";

/** What a crash deep in a library looks like: a server path in the message, a stack below it. */
function leakyError(): Error {
  const err = new Error("EACCES: permission denied, open '/root/secret/x' (SELECT * FROM account)");
  err.stack = `${err.message}\n    at readSecret (/root/secret/loader.ts:12:7)\n    at internal-db.corp.local:5432`;
  return err;
}

describe("publicError", () => {
  it("turns an unexpected error into a sentence with a reference; the log has the reference and the detail", () => {
    const captured = captureLog();
    const shown = publicError(leakyError(), {
      doing: "importing the code",
      log: captured.log,
      context: { snapshot: "s1" },
    });
    expect(shown.reference).toMatch(/^[0-9a-f]{8}$/);
    expect(shown.message).toBe(
      `Something went wrong while importing the code. Try again; if it keeps failing, give your administrator this reference: ${shown.reference}.`,
    );
    for (const secret of ["/root/secret", "SELECT", "at readSecret", "internal-db"])
      expect(shown.message).not.toContain(secret);

    const [line] = captured.lines();
    expect(line).toMatchObject({ level: 50, reference: shown.reference, snapshot: "s1" });
    const text = captured.text();
    expect(text).toContain("/root/secret/x");
    expect(text).toContain("at readSecret (/root/secret/loader.ts:12:7)");
  });

  it("gives every failure its own reference", () => {
    const { log } = captureLog();
    const refs = new Set(Array.from({ length: 50 }, () => publicError(new Error("x"), { doing: "x", log }).reference));
    expect(refs.size).toBe(50);
  });

  it("a thrown non-Error (a string, undefined) is unexpected too", () => {
    const captured = captureLog();
    expect(publicError("/root/secret/x", { doing: "indexing", log: captured.log }).message).not.toContain("/root");
    expect(publicError(undefined, { doing: "indexing", log: captured.log }).message).toMatch(/^Something went wrong/);
    expect(captured.text()).toContain("/root/secret/x");
  });

  it("errors written for users keep their message and are not logged as failures", () => {
    const captured = captureLog();
    const llm = new LlmError({
      kind: "rate_limit",
      provider: "anthropic",
      model: "claude-x",
      status: 429,
      detail: "slow down",
    });
    for (const err of [
      invalid("The zip archive is corrupt. Re-create it, or upload it again."),
      ingestError("cap_files", "The upload has more than 20000 files. Upload fewer files."),
      llm,
      new ReviewAgentError("No usable REPORT after 2 repair attempt(s): summary: Required", {
        stopReason: "invalid_report",
        iterations: 3,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: undefined,
        notes: [],
      }),
      new TooManyChunksError("This base would have 600000 chunks; the limit is 500000. Use larger chunks."),
      new ToolError("q_ls must be a list"),
      new StepError("toy.boom", new ToolError("the toy exploded")),
    ]) {
      expect(publicError(err, { doing: "x", log: captured.log })).toEqual({ message: err.message });
    }
    expect(llm.message).toBe("anthropic (claude-x) 429: slow down");
    expect(captured.lines()).toEqual([]);
  });

  it("a wrapper is only as public as its cause: a step whose tool crashed hides the crash", () => {
    const captured = captureLog();
    const shown = publicError(new StepError("retriever.search", leakyError()), {
      doing: "running step retriever.search",
      log: captured.log,
    });
    expect(shown.message).toMatch(
      /^Something went wrong while running step retriever\.search\. .*reference: [0-9a-f]{8}\.$/,
    );
    expect(shown.message).not.toContain("/root");
    expect(captured.text()).toContain("/root/secret/x");
  });
});
