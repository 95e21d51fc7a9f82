/**
 * What typing in the pipeline editor costs on the server (issue 16: revalidate within 150 ms): one
 * inspection (parse, validate against the built-in servers, the step graph, the parameter form) of a
 * 60-step pipeline with loops and branches, next to a baseline measured in the same run — parsing the
 * same YAML alone (the `yaml` package). The browser adds the round trip and the redraw.
 */
import { parseDocument } from "yaml";
import { inspectPipeline } from "../server/pipelines/workspace/inspect.ts";
import { summarize, time } from "./_stats.ts";

/** 60 tool steps: retrieval and generation rounds, every fifth round inside a loop with a branch. */
function sixtySteps(): string {
  const lines = [
    "servers:",
    "  benchmark: servers/benchmark",
    "  retriever: servers/retriever",
    "  generation: servers/generation",
    "  prompt: servers/prompt",
    "  router: servers/router",
    "  custom: servers/custom",
    "pipeline:",
    "  - benchmark.get_data",
    "  - retriever.retriever_init",
    "  - retriever.bm25_index",
    "  - generation.generation_init",
  ];
  let steps = 4;
  while (steps < 60) {
    lines.push(
      "  - loop:",
      "      times: 2",
      "      steps:",
      "        - retriever.bm25_search",
      "        - prompt.ircot_next_prompt",
      "        - generation.generate",
      "        - branch:",
      "            router:",
      "              - router.ircot_check_end",
      "            branches:",
      "              incomplete:",
      "                - custom.ircot_get_first_sent",
      "              complete: []",
      "  - custom.ircot_extract_ans",
    );
    steps += 6;
  }
  return `${lines.join("\n")}\n`;
}

export default async function bench() {
  const source = sixtySteps();
  const inspect = () => inspectPipeline(source, { file: "bench.yaml", parameters: {} });
  const first = await inspect();
  if (!first.ok) throw new Error(`the bench pipeline should be valid: ${first.diagnostics[0]?.message}`);
  await time(20, inspect); // warm-up
  const inspection = summarize(await time(200, inspect));
  const yamlOnly = summarize(await time(200, async () => parseDocument(source)));
  return {
    steps: first.graph!.nodes.filter((n) => n.kind !== "end" && n.kind !== "loop").length,
    nodes: first.graph!.nodes.length,
    edges: first.graph!.edges.length,
    bytes: source.length,
    inspectMs: inspection,
    baselineYamlParseMs: yamlOnly,
  };
}
