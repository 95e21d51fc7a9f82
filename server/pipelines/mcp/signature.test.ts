import { describe, expect, it } from "vitest";
import { signatureFromListings, signatureFromServerYaml } from "./signature.ts";

describe("signatureFromListings", () => {
  it("applies an UltraRAG `output=` annotation (FastMCP list_tools) with auto-$ against the parameters", () => {
    const sig = signatureFromListings(
      [
        {
          name: "retriever_search",
          inputSchema: { properties: { query_list: {}, top_k: {}, query_instruction: {}, collection_name: {} } },
          annotations: { output: "q_ls,top_k,query_instruction,collection_name->ret_psg" },
        },
        { name: "vllm_shutdown", inputSchema: { properties: {} }, annotations: { output: "->None" } },
        { name: "build", inputSchema: { properties: { parameter_file: {} } } },
      ],
      [],
      { top_k: 5, query_instruction: "", collection_name: "wiki" },
    );
    expect(sig.tools).toEqual({
      retriever_search: {
        input: {
          query_list: "q_ls",
          top_k: "$top_k",
          query_instruction: "$query_instruction",
          collection_name: "$collection_name",
        },
        output: ["ret_psg"],
      },
      vllm_shutdown: { input: {}, output: [] },
    });
  });

  it("without annotations: same-named inputs, outputs from outputSchema; prompts store under prompt_ls", () => {
    const sig = signatureFromListings(
      [
        {
          name: "lookup",
          inputSchema: { properties: { query: {}, limit: {} } },
          outputSchema: { properties: { hits: {}, total: {} } },
        },
      ],
      [{ name: "qa_boxed", arguments: [{ name: "q_ls" }, { name: "template" }] }],
      { limit: 3, template: "prompt/qa.jinja" },
    );
    expect(sig.tools.lookup).toEqual({ input: { query: "query", limit: "$limit" }, output: ["hits", "total"] });
    expect(sig.prompts.qa_boxed).toEqual({ input: { q_ls: "q_ls", template: "$template" }, output: ["prompt_ls"] });
  });

  it("prefers the exact mapping in _meta[argus/io], skips names a step cannot call, survives a bad spec", () => {
    const sig = signatureFromListings(
      [
        {
          name: "exact",
          inputSchema: { properties: { a: {} } },
          _meta: { "argus/io": { input: { a: "x_ls" }, output: ["y"] } },
        },
        { name: "has.dot", inputSchema: { properties: {} } },
        { name: "two_arrows", inputSchema: { properties: { a: {} } }, annotations: { output: "a->b->c" } },
      ],
      [],
      {},
    );
    expect(Object.keys(sig.tools)).toEqual(["exact", "two_arrows"]);
    expect(sig.tools.exact).toEqual({ input: { a: "x_ls" }, output: ["y"] });
    expect(sig.tools.two_arrows).toEqual({ input: { a: "a" }, output: [] });
  });
});

describe("signatureFromServerYaml", () => {
  it("reads UltraRAG's server.yaml (sayhello, and empty sections written as null)", () => {
    const sig = signatureFromServerYaml(
      {
        path: "servers/sayhello/src/sayhello.py",
        parameter: "servers/sayhello/parameter.yaml",
        tools: { greet: { input: { name: "$name" }, output: ["msg"] }, shutdown: { input: {} } },
        prompts: null,
      },
      { name: "UltraRAG v3" },
    );
    expect(sig).toEqual({
      tools: { greet: { input: { name: "$name" }, output: ["msg"] }, shutdown: { input: {}, output: [] } },
      prompts: {},
      parameters: { name: "UltraRAG v3" },
    });
  });

  it("says what is wrong with a malformed file", () => {
    expect(() => signatureFromServerYaml({ tools: { greet: { input: ["name"] } } }, {})).toThrow(
      /server.yaml is not in UltraRAG's format: tools.greet.input/,
    );
  });
});
