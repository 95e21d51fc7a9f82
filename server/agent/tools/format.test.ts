import { describe, expect, it } from "vitest";
import { z } from "zod";
import { invalid } from "../../errors.ts";
import { SandboxError } from "../sandbox.ts";
import { defineTool, ok } from "./format.ts";

/** A tool whose run throws what it is given (or answers "fine"). */
const toolThrowing = (error?: unknown) =>
  defineTool({
    name: "probe",
    description: "test tool",
    input: z.object({ path: z.string() }),
    async run(args) {
      if (error) throw error;
      return ok(`fine: ${args.path}`);
    },
  });

describe("defineTool", () => {
  it("passes a result through", async () => {
    expect(await toolThrowing().run({ path: "a.ts" })).toEqual({ text: "fine: a.ts" });
  });

  it("turns a Sandbox refusal or a domain error into an error result with its message", async () => {
    const refusal = new SandboxError("outside_root", 'The path climbs out of the snapshot with "..".');
    expect(await toolThrowing(refusal).run({ path: "../x" })).toEqual({ isError: true, text: refusal.message });
    expect(await toolThrowing(invalid("No such symbol.")).run({ path: "a.ts" })).toEqual({
      isError: true,
      text: "No such symbol.",
    });
  });

  it("rethrows anything else, for runToolCall to report as a failure", async () => {
    const bug = new TypeError("undefined is not a function");
    await expect(toolThrowing(bug).run({ path: "a.ts" })).rejects.toBe(bug);
  });
});
