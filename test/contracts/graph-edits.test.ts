import { describe, expect, it } from "vitest";
// A contract between the layers: the graph edits run in the browser (app/, pure: the yaml library
// only) and address the node ids of the server's inspection, which the page draws. It lives in
// test/contracts, outside both layers, because server/ never imports app/ (lint: server-app).
import { deleteStep, insertStep } from "../../app/(app)/pipelines/_components/graph-edits.ts";
import { inspectPipeline } from "../../server/pipelines/workspace/inspect.ts";

const IRCOT = `# the IRCoT shape, trimmed
servers:
  benchmark: servers/benchmark
  retriever: servers/retriever
  gen: servers/generation
  prompt: servers/prompt
  router: servers/router
  custom: servers/custom
pipeline:
  - benchmark.get_data # comments stay
  - retriever.retriever_init
  - loop:
      times: 3
      steps:
        - prompt.ircot_next_prompt
        - gen.generate
        - branch:
            router:
              - custom.ircot_get_first_sent
              - router.ircot_check_end
            branches:
              incomplete:
                - retriever.bm25_search
              complete: []
  - custom.ircot_extract_ans
`;

/** The graph's labels with their ids, as the page draws them. */
async function graph(source: string) {
  const i = await inspectPipeline(source, { file: "p.yaml", parameters: {} });
  expect(i.graph, JSON.stringify(i.diagnostics)).not.toBeNull();
  return i.graph!.nodes.map((n) => `${n.id} ${n.label}`);
}

const ok = (r: ReturnType<typeof insertStep>) => {
  if (!r.ok) throw new Error(r.error);
  return r.source;
};

describe("graph edits of the YAML", () => {
  it("addresses nodes by the graph's own ids", async () => {
    expect(await graph(IRCOT)).toEqual([
      "s0 benchmark.get_data",
      "s1 retriever.retriever_init",
      "s2 loop ×3",
      "s2.0 prompt.ircot_next_prompt",
      "s2.1 gen.generate",
      "s2.2.pre.0 custom.ircot_get_first_sent",
      "s2.2 router.ircot_check_end",
      "s2.2.case.incomplete.0 retriever.bm25_search",
      "s3 custom.ircot_extract_ans",
      "end end",
    ]);
  });

  it("adds a step after the selected node, inside loops and branch states, reusing the server's alias", async () => {
    const inLoop = ok(insertStep(IRCOT, { kind: "tool", server: "generation", tool: "generate" }, "s2.0"));
    expect(await graph(inLoop)).toContain("s2.1 gen.generate");
    expect((await graph(inLoop)).filter((l) => l.endsWith("gen.generate"))).toHaveLength(2);
    expect(inLoop).not.toContain("generation: servers/generation"); // the alias gen was reused
    expect(inLoop).toContain("- benchmark.get_data # comments stay");

    const inCase = ok(
      insertStep(IRCOT, { kind: "tool", server: "retriever", tool: "bm25_search" }, "s2.2.case.incomplete.0"),
    );
    expect(await graph(inCase)).toContain("s2.2.case.incomplete.1 retriever.bm25_search");

    const atEnd = ok(insertStep(IRCOT, { kind: "tool", server: "evaluation", tool: "evaluate" }, null));
    expect(atEnd).toContain("evaluation: servers/evaluation");
    expect((await graph(atEnd)).slice(-2)).toEqual(["s4 evaluation.evaluate", "end end"]);
  });

  it("adds a loop and a branch, drawn as such", async () => {
    const looped = ok(insertStep(IRCOT, { kind: "loop", times: 2, server: "generation", tool: "generate" }, "s0"));
    expect((await graph(looped)).slice(0, 3)).toEqual(["s0 benchmark.get_data", "s1 loop ×2", "s1.0 gen.generate"]);

    const branched = ok(
      insertStep(
        looped,
        { kind: "branch", server: "router", router: "ircot_check_end", states: ["complete", " incomplete "] },
        "s1.0",
      ),
    );
    const g = await graph(branched);
    expect(g).toContain("s1.1 router.ircot_check_end");
    const i = await inspectPipeline(branched, { file: "p.yaml", parameters: {} });
    // Empty states go straight on (here: back round the loop), one edge each, labelled with the state.
    const cases = i.graph!.edges.filter((e) => e.source === "s1.1").map((e) => e.label);
    expect(cases.sort()).toEqual(["complete · repeat", "incomplete · repeat"]);
  });

  it("deletes a step, or a loop or branch whole", async () => {
    expect(await graph(ok(deleteStep(IRCOT, "s1")))).toContain("s1 loop ×3");
    const noBranch = await graph(ok(deleteStep(IRCOT, "s2.2")));
    expect(noBranch.some((l) => l.includes("ircot_check_end") || l.includes("bm25_search"))).toBe(false);
    const noLoop = await graph(ok(deleteStep(IRCOT, "s2")));
    expect(noLoop).toEqual([
      "s0 benchmark.get_data",
      "s1 retriever.retriever_init",
      "s2 custom.ircot_extract_ans",
      "end end",
    ]);
    expect(await graph(ok(deleteStep(IRCOT, "s2.2.pre.0")))).not.toContain("s2.2.pre.0 custom.ircot_get_first_sent");
  });

  it("says why an edit cannot be made", () => {
    expect(deleteStep(IRCOT, "end")).toEqual({
      ok: false,
      error: "The end of the pipeline is not a step: there is nothing to delete.",
    });
    expect(deleteStep(IRCOT, "s9")).toMatchObject({
      ok: false,
      error: expect.stringContaining("not in the YAML any more (s9)"),
    });
    expect(deleteStep(IRCOT, "s0.1")).toMatchObject({ ok: false });
    expect(deleteStep("pipeline: [a.b\n", "s0")).toMatchObject({ ok: false, error: expect.stringContaining("syntax") });
    const branch = { kind: "branch", server: "router", router: "ircot_check_end" } as const;
    expect(insertStep(IRCOT, { ...branch, states: [" "] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("at least one state"),
    });
    expect(insertStep(IRCOT, { ...branch, states: ["a-b"] })).toMatchObject({
      ok: false,
      error: expect.stringContaining('"a-b"'),
    });
    expect(insertStep(IRCOT, { ...branch, states: ["a", "a"] })).toMatchObject({
      ok: false,
      error: "Each state is named once.",
    });
    expect(insertStep(IRCOT, { kind: "loop", times: 0, server: "generation", tool: "generate" })).toMatchObject({
      ok: false,
      error: "A loop runs a whole number of times, from 1 to 1000.",
    });
  });
});
