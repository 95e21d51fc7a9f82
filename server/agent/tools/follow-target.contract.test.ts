// "Follow the agent" (server/shared/follow-target.ts) reads files and lines out of the tools' result
// previews. This runs the real tools on the fixture and feeds their output, cut to the preview the
// agent loop publishes, to the extraction: a change to a tool's output format fails here.
import { expect, it } from "vitest";
import { TOOL_PREVIEW_CHARS } from "../../shared/agent-events.ts";
import { targetOfCall } from "../../shared/follow-target.ts";
import { fixtureWithTools } from "./test-fixture.ts";

const { call } = await fixtureWithTools({ index: true });

async function targetOf(name: string, input: Record<string, unknown>) {
  const r = await call(name, input);
  expect(r.isError, r.text).toBeFalsy();
  return targetOfCall(name, input, r.text.slice(0, TOOL_PREVIEW_CHARS));
}

it("grep over a folder: the first file with matches and its matching lines", async () => {
  expect(await targetOf("grep", { pattern: "formatName", path: "src", context: 1 })).toMatchObject({
    path: "src/app.ts",
    ranges: [
      [1, 1],
      [8, 8],
    ],
    focus: 1,
  });
});

it("grep in one file", async () => {
  expect(await targetOf("grep", { pattern: "SELECT", path: "src/app.ts" })).toMatchObject({
    path: "src/app.ts",
    ranges: [[18, 18]],
  });
});

it("find_definition and list_symbols across files: the definition's line range", async () => {
  expect(await targetOf("find_definition", { name: "runQuery" })).toMatchObject({
    path: "src/app.ts",
    ranges: [[17, 19]],
  });
  expect(await targetOf("list_symbols", { query: "formatName" })).toMatchObject({
    path: "src/util.ts",
    ranges: [[1, 3]],
  });
});

it("find_references: the first file's reference lines", async () => {
  const t = await targetOf("find_references", { name: "formatName" });
  expect(t?.path).toBe("src/app.ts");
  expect(t?.ranges).toContainEqual([8, 8]);
});

it("find_module: the file the import resolves to", async () => {
  expect((await targetOf("find_module", { specifier: "./util", from_file: "src/app.ts" }))?.path).toBe("src/util.ts");
});
