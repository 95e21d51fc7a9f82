/** The parameter form's layout from a real gallery pipeline: what its steps read, plain words, Advanced. */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { groupParams, paramWords } from "../../shared/param-guide.ts";
import type { ParamField } from "../../shared/pipelines.ts";
import { inspectPipeline } from "./inspect.ts";

const gallery = (name: string) => ({
  source: readFileSync(`pipelines/${name}.yaml`, "utf8"),
  parameters: parse(readFileSync(`pipelines/parameter/${name}_parameter.yaml`, "utf8")) as Record<string, unknown>,
});

const names = (fields: readonly ParamField[]) => fields.map((f) => f.path.join("."));

describe("the parameter form of vanilla_rag", async () => {
  const { source, parameters } = gallery("vanilla_rag");
  const { fields } = await inspectPipeline(source, { file: "vanilla_rag.yaml", parameters });
  const file = parameters as Record<string, Record<string, unknown>>;
  const valueOf = (f: ParamField) =>
    f.path.reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], file[f.alias]);
  const groups = groupParams(fields, valueOf);
  const group = (alias: string) => groups.find((g) => g.alias === alias)!;

  it("groups by server alias and names the server", () => {
    // custom's parameter file section is empty: it takes none, so it has no group.
    expect(groups.map((g) => g.alias)).toEqual(["benchmark", "retriever", "generation", "prompt", "evaluation"]);
    expect(group("generation").server).toBe("generation");
  });

  it("leads with the settings of the generation backend in use; other backends go under Advanced", () => {
    const g = group("generation");
    expect(file.generation!.backend).toBe("openai");
    expect(names(g.main)).toContain("backend_configs.openai.base_url");
    expect(names(g.main)).toContain("sampling_params.temperature");
    expect(names(g.main).some((n) => n.startsWith("backend_configs.vllm") || n.startsWith("backend_configs.hf"))).toBe(
      false,
    );
    expect(names(g.otherBackends)).toContain("backend_configs.vllm.gpu_memory_utilization");
  });

  it("folds the index backend not in use (milvus while faiss is picked)", () => {
    const r = group("retriever");
    expect(names(r.main)).toContain("top_k");
    expect(names(r.main)).toContain("index_backend_configs.faiss.index_path");
    expect(names(r.otherBackends)).toContain("index_backend_configs.milvus.uri");
    expect(names(r.otherBackends)).toContain("backend_configs.openai.base_url");
  });

  it("switching the backend in the file moves its block out of Advanced", () => {
    const switched = (f: ParamField) =>
      f.alias === "generation" && f.path.join(".") === "backend" ? "vllm" : valueOf(f);
    const g = groupParams(fields, switched).find((x) => x.alias === "generation")!;
    expect(names(g.main)).toContain("backend_configs.vllm.model_name_or_path");
    expect(names(g.otherBackends)).toContain("backend_configs.openai.base_url");
  });

  it("gives each field a plain label and help, with the backend it belongs to", () => {
    const baseUrl = fields.find(
      (f) => f.alias === "generation" && f.path.join(".") === "backend_configs.openai.base_url",
    );
    expect(baseUrl).toMatchObject({ label: "OpenAI-compatible API · Base URL", read: true });
    expect(baseUrl?.help).toMatch(/address/);
    expect(fields.find((f) => f.alias === "retriever" && f.path.join(".") === "top_k")?.label).toBe(
      "Results per question",
    );
  });
});

describe("plain words", () => {
  it("name nested values by the groups they sit in, and humanise unknown keys", () => {
    expect(paramWords(["sampling_params", "max_tokens"]).label).toBe("Sampling · Longest answer (tokens)");
    expect(paramWords(["index_backend_configs", "milvus", "uri"]).label).toBe("Milvus · Uri");
    expect(paramWords(["my_custom_knob"]).label).toBe("My custom knob");
    expect(paramWords(["qa_template"]).label).toBe("Qa prompt template");
  });
});

it("folds what no step reads: BM25 search never reads the web search or embedding settings", async () => {
  const source = "servers:\n  retriever: servers/retriever\npipeline:\n  - retriever.bm25_search\n";
  const { fields } = await inspectPipeline(source, { file: "p.yaml", parameters: {} });
  const read = names(fields.filter((f) => f.read));
  expect(read).toEqual(["top_k"]);
  expect(names(fields.filter((f) => !f.read))).toContain("websearch_backend");
});

it("an alias with a step the servers do not know keeps every field in view", async () => {
  const source = "servers:\n  retriever: servers/retriever\npipeline:\n  - retriever.no_such_tool\n";
  const { fields } = await inspectPipeline(source, { file: "p.yaml", parameters: {} });
  expect(fields.length).toBeGreaterThan(0);
  expect(fields.every((f) => f.read === true)).toBe(true);
});
