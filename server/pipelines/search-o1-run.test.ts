/**
 * Search-o1 end to end on the gallery pipeline: the model asks for a search, the retrieved documents
 * are distilled into "Final Information", the query/result pair is inserted into the prompt, and the
 * model answers. Scripted replies chosen by which prompt is asked.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, expect, it } from "vitest";
import { startScriptedServer } from "../llm/scripted/server.ts";
import { repoRoot } from "./dsl/test-support.ts";
import { runPipeline } from "./engine/run.ts";
import { tempDir } from "./engine/test-support.ts";

const llm = await startScriptedServer({
  script: {
    rules: [
      { match: "<|begin_search_result|>**Final", text: "It was finished then. \\boxed{1889}" },
      { match: "Reasoning so far:", text: "Notes.\n**Final Information**\nThe tower was completed in March 1889." },
      { match: "Question:", text: 'I need the date. <|begin_search_query|> "Eiffel  Tower" <|end_search_query|>' },
      { text: "NO_RULE" },
    ],
  },
});
afterAll(() => llm.close());

let dir: string;
beforeEach(() => {
  const t = tempDir();
  dir = t.dir;
  cpSync(path.join(repoRoot, "pipelines"), dir, { recursive: true });
  llm.reset();
  return t.cleanup;
});

it("Search-o1 searches once per question, inserts the distilled result and takes the boxed answer", async () => {
  const result = await runPipeline("search_o1.yaml", {
    cwd: dir,
    overrides: {
      generation: {
        backend: "openai",
        backend_configs: { openai: { model_name: "s", base_url: llm.openaiBaseURL, api_key: "k", concurrency: 1 } },
      },
    },
  });
  const texts = llm.requests.map((r) => r.lastUserText);
  expect(texts).toHaveLength(15); // 5 questions × (reason, refine, answer)
  expect(result.variables.pred_ls).toEqual(["1889", "1889", "1889", "1889", "1889"]);
  const refine = texts.find((t) => t.includes("Reasoning so far:"))!;
  expect(refine).toContain("Step 1: I need the date.");
  expect(refine).toContain("Their search query: Eiffel Tower");
  expect(refine).toMatch(/Documents:\nEiffel Tower/);
  const insert = texts.find((t) => t.includes("<|begin_search_result|>**"))!;
  expect(insert).toMatch(
    /Question: Who discovered penicillin\?\n<\|begin_search_query\|>Eiffel Tower<\|end_search_query\|>\n<\|begin_search_result\|>\*\*Final Information\*\*\nThe tower was completed in March 1889\.<\|end_search_result\|>$/,
  );
  expect(result.variables.total_subq_list).toEqual(Array.from({ length: 5 }, () => ["Eiffel Tower"]));
});
