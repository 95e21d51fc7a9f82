import { describe, expect, it } from "vitest";
import { IoSpecError, signatureFromSpec } from "./io-spec.ts";

// The table of ULTRARAG-SPEC §3.2.
describe("signatureFromSpec", () => {
  const keys = new Set([
    "name",
    "top_k",
    "query_instruction",
    "collection_name",
    "ir_metrics",
    "ks",
    "save_path",
    "run_path",
    "qrels_path",
  ]);
  it.each([
    [["name"], "name->msg", { input: { name: "$name" }, output: ["msg"] }],
    [
      ["query_list", "top_k", "query_instruction", "collection_name"],
      "q_ls,top_k,query_instruction,collection_name->ret_psg",
      {
        input: {
          query_list: "q_ls",
          top_k: "$top_k",
          query_instruction: "$query_instruction",
          collection_name: "$collection_name",
        },
        output: ["ret_psg"],
      },
    ],
    [
      ["q_ls", "ans_ls"],
      "q_ls,ret_psg->nextq_ls",
      { input: { q_ls: "q_ls", ans_ls: "ret_psg" }, output: ["nextq_ls"] },
    ],
    [["query_list"], "query_list", { input: { query_list: "query_list" }, output: ["query_list"] }],
    [[], "->None", { input: {}, output: [] }],
    [
      ["run_path", "qrels_path", "metrics", "ks", "save_path"],
      "run_path,qrels_path,ir_metrics,ks,save_path->eval_res",
      {
        input: {
          run_path: "$run_path",
          qrels_path: "$qrels_path",
          metrics: "$ir_metrics",
          ks: "$ks",
          save_path: "$save_path",
        },
        output: ["eval_res"],
      },
    ],
    [["a", "b", "c"], " x , y ->  none ", { input: { a: "x", b: "y" }, output: [] }],
    [["top_k"], undefined, { input: { top_k: "$top_k" }, output: [] }],
  ])("%j %s", (params, spec, expected) => {
    expect(signatureFromSpec(params, spec, keys)).toEqual(expected);
  });

  it("refuses more than one arrow", () => {
    expect(() => signatureFromSpec(["a"], "a->b->c", keys)).toThrow(IoSpecError);
  });
});
