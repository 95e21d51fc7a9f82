import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPipelineSource } from "./index.ts";

describe("readPipelineSource", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "argus-dsl-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a file within the limit", async () => {
    await writeFile(join(dir, "ok.yaml"), "pipeline: []\n");
    expect(await readPipelineSource(join(dir, "ok.yaml"))).toEqual({ source: "pipeline: []\n" });
  });

  it("refuses an oversized file from its size, and a missing one", async () => {
    await writeFile(join(dir, "big.yaml"), "x".repeat(50));
    expect((await readPipelineSource(join(dir, "big.yaml"), { maxBytes: 10 }, "big.yaml")).diagnostic).toMatchObject({
      code: "too_large",
      file: "big.yaml",
    });
    expect((await readPipelineSource(join(dir, "nope.yaml"), {}, "nope.yaml")).diagnostic?.message).toBe(
      "Pipeline file 'nope.yaml' does not exist",
    );
  });
});
