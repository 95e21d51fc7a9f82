import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { aliasParameters, checkPipeline, formatDiagnostic, parsePipeline } from "./index.ts";
import { examplePipelines, fixtureCatalog, readUltrarag } from "./test-support.ts";

// The real UltraRAG pipelines must parse unchanged, and validate exactly as spec §2.2/§6 says.
describe("UltraRAG example pipelines", () => {
  const files = examplePipelines();
  const catalog = fixtureCatalog();

  it("finds the shipped examples", () => {
    expect(files).toContain("examples/experiments/sayhello.yaml");
    expect(files.length).toBeGreaterThanOrEqual(9);
  });

  it.each(files)("%s parses without diagnostics", (file) => {
    const { pipeline, diagnostics } = parsePipeline(readUltrarag(file), { file });
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(pipeline?.steps.length).toBeGreaterThan(0);
  });

  it.each(files.filter((f) => !f.endsWith("rag_loop.yaml")))("%s validates against the server defaults", (file) => {
    const result = checkPipeline(readUltrarag(file), { file, catalog });
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("rag_loop fails as UltraRAG does (P2.2), pointing at the step", () => {
    const file = "examples/experiments/rag_loop.yaml";
    const result = checkPipeline(readUltrarag(file), { file, catalog });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toHaveLength(1);
    const [d] = result.diagnostics;
    expect(d).toMatchObject({ code: "undefined_variable", line: 21, col: 7 });
    expect(formatDiagnostic(d!)).toContain(
      "Variable gen_subq_template cannot be found from pipeline before prompt.gen_subq step",
    );
    expect(formatDiagnostic(d!)).toMatch(/^examples\/experiments\/rag_loop\.yaml:21:7: .* \(.*input `template`.*\)$/);
  });

  it("the demo validates with its committed parameter file", () => {
    const file = "examples/demos/LLM.yaml";
    const parsed = parsePipeline(readUltrarag(file), { file });
    const paramFile = parse(readUltrarag("examples/demos/parameter/LLM_parameter.yaml")) as Record<string, unknown>;
    const parameters = aliasParameters(parsed.pipeline!, catalog, paramFile);
    expect(checkPipeline(readUltrarag(file), { file, catalog, parameters }).ok).toBe(true);
  });

  it("search_r1 parses to a loop around a branch with two states", () => {
    const { pipeline } = parsePipeline(readUltrarag("examples/experiments/search_r1.yaml"));
    const loop = pipeline!.steps[5]!;
    expect(loop).toMatchObject({ kind: "loop", times: 5 });
    const branch = loop.kind === "loop" ? loop.steps[0] : undefined;
    expect(branch).toMatchObject({ kind: "branch", router: { alias: "router", tool: "search_r1_check" }, pre: [] });
    expect(branch?.kind === "branch" && branch.branches.map((b) => [b.state, b.steps.length])).toEqual([
      ["incomplete", 4],
      ["complete", 0],
    ]);
  });
});
