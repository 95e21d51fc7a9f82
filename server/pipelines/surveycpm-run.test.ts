/**
 * SurveyCPM (UltraRAG's AgentCPM-Report demo) end to end: the gallery's survey_report pipeline, which
 * has the demo's steps (plus building its dense index), and the demo's own step list as spec §6
 * describes it, both built and run with a scripted model that answers each step's prompt as the
 * agent would — search, plan, write each section, extend a section, write its subsections, finish.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildPipeline } from "./build.ts";
import { startScriptedServer } from "../llm/scripted/server.ts";
import type { RuleInput } from "../llm/scripted/script.ts";
import { repoRoot } from "./dsl/test-support.ts";
import { runPipeline } from "./engine/run.ts";
import { tempDir } from "./engine/test-support.ts";

const llm = await startScriptedServer({ script: { rules: [] } });
afterAll(() => llm.close());

const action = (a: unknown, thought = "because") =>
  `<thought>${thought}</thought><action>${JSON.stringify(a)}</action>`;
const write = (text: string) => `<thought>write it</thought><action>${text}</action>`;

/** The agent's answers, chosen by which step's prompt (and which section) is asked. */
const agent: RuleInput[] = [
  { match: "This step: SEARCH", text: action({ name: "search", keywords: ["penicillin", "Everest"] }) },
  {
    match: "This step: PLAN",
    text: action({
      name: "init-plan",
      title: "Discoveries and landmarks",
      sections: [
        { title: "1. Medicine", plan: "Penicillin." },
        { title: "Section 2 Mountains", plan: "Everest." },
        { title: "Rivers", plan: "The Amazon." },
      ],
    }),
  },
  { match: "You need to update section-1.", text: write("Fleming saw the mould kill bacteria \\cite{textid1}.") },
  { match: "You need to update section-2.1", text: write("Its height is 8,849 metres \\cite{textid2, textid1}.") },
  { match: "You need to update section-2.2", text: write("It was first climbed in 1953.") },
  { match: "You need to update section-2.", text: write("Everest is the highest mountain.\n\n\n\nSee Section-3.") },
  { match: "You need to update section-3.", text: write("The Amazon carries the most water.") },
  {
    match: "This step: EXTEND",
    times: 1,
    text: action({
      name: "extend-plan",
      position: "section-2",
      subsections: [
        { title: "Height", plan: "How high." },
        { title: "First ascent", plan: "Who and when." },
      ],
    }),
  },
  { match: "This step: EXTEND", text: action({ name: "nop" }) },
  { text: "NO_RULE" },
];

const REPORT = [
  "# Discoveries and landmarks",
  "",
  "## 1 Medicine",
  "",
  "Fleming saw the mould kill bacteria [1].",
  "",
  "## 2 Mountains",
  "",
  "Everest is the highest mountain.",
  "",
  "See .",
  "",
  "### 2.1 Height",
  "",
  "Its height is 8,849 metres [1][2].",
  "",
  "### 2.2 First ascent",
  "",
  "It was first climbed in 1953.",
  "",
  "## 3 Rivers",
  "",
  "The Amazon carries the most water.",
].join("\n");

let dir: string;
beforeEach(() => {
  const t = tempDir();
  dir = t.dir;
  cpSync(path.join(repoRoot, "pipelines"), dir, {
    recursive: true,
    filter: (src) =>
      !/[\\/](index|output|corpora|ui)([\\/]|$)/.test(path.relative(path.join(repoRoot, "pipelines"), src)),
  });
  llm.reset();
  llm.setScript({ rules: agent });
  return t.cleanup;
});

const generation = () => ({
  generation: {
    backend: "openai",
    backend_configs: {
      openai: { model_name: "scripted", base_url: llm.openaiBaseURL, api_key: "k", concurrency: 1, retries: 1 },
    },
  },
});

const userTexts = () =>
  llm.requests.map((r) => {
    const body = r.body as { messages: { role: string; content: string }[] };
    return body.messages.at(-1)!.content;
  });

describe("SurveyCPM (AgentCPM-Report)", () => {
  it("searches, plans, writes every section, extends one, writes its subsections and stops", async () => {
    const result = await runPipeline("survey_report.yaml", { cwd: dir, overrides: generation() });
    expect(result.variables.final_survey_ls).toEqual([REPORT]);
    const steps = userTexts().map((t) => /This step: (\w+)/.exec(t)?.[1]);
    expect(steps).toEqual([
      ...["SEARCH", "PLAN"],
      ...["SEARCH", "WRITE", "SEARCH", "WRITE", "SEARCH", "WRITE"],
      "EXTEND",
      ...["SEARCH", "WRITE", "SEARCH", "WRITE"],
      "EXTEND",
    ]);
    expect(result.variables.state_ls).toEqual(["done"]);
    expect(result.variables.step_ls).toEqual([14]);
    // The survey is stored as Python's json.dumps writes it.
    expect(String((result.variables.survey_ls as string[])[0])).toMatch(
      /^\{"title": "Discoveries and landmarks", "sections": \[/,
    );
    // Passages carry citation keys; the same passage keeps its key across searches.
    const write = userTexts().find((t) => t.includes("This step: WRITE") && t.includes("update section-2.1"))!;
    expect(write).toContain("bibkey:textid1\nPenicillin");
    expect(write).toMatch(
      /# Section-2 \[Section 2 Mountains\]: \[OK\] Everest is the highest mountain\. {4}See Section-3\./,
    );
    expect(write).toContain("    ## Section-2.1 [Height]: [PLAN] How high.");
    expect(readFileSync(result.memoryFile!, "utf8")).toContain("surveycpm_update_state");
  });

  it("an answer that never parses is asked again until surveycpm_max_step ends it", async () => {
    llm.setScript({ rules: [{ text: "I cannot help with that." }] });
    const result = await runPipeline("survey_report.yaml", {
      cwd: dir,
      overrides: { ...generation(), custom: { surveycpm_max_step: 5 } },
    });
    expect(llm.requests).toHaveLength(6); // steps 0–5 ask; at step 6 (≥ 5) the item is done
    expect(result.variables.state_ls).toEqual(["done"]);
    expect(result.variables.final_survey_ls).toEqual(["No survey generated."]);
  });

  it("the demo's own step list (spec §6) builds and runs over a prebuilt index", async () => {
    // Build the dense index the demo expects to exist, then run the demo's steps unchanged.
    const gallery = parse(readFileSync(path.join(dir, "survey_report.yaml"), "utf8")) as { pipeline: unknown[] };
    const demo = (gallery.pipeline as unknown[]).filter(
      (s) => s !== "retriever.retriever_embed" && s !== "retriever.retriever_index",
    );
    expect(demo).toHaveLength(gallery.pipeline.length - 2);
    writeFileSync(
      path.join(dir, "index_first.yaml"),
      "servers:\n  retriever: servers/retriever\npipeline:\n- retriever.retriever_init\n- retriever.retriever_embed\n- retriever.retriever_index\n",
    );
    const param = path.join(dir, "parameter", "survey_report_parameter.yaml");
    await runPipeline("index_first.yaml", { cwd: dir, param });
    const source = readFileSync(path.join(dir, "survey_report.yaml"), "utf8")
      .replace("  - retriever.retriever_embed\n", "")
      .replace("  - retriever.retriever_index\n", "");
    writeFileSync(path.join(dir, "AgentCPM-Report.yaml"), source);
    writeFileSync(path.join(dir, "parameter", "AgentCPM-Report_parameter.yaml"), readFileSync(param));
    const built = await buildPipeline("AgentCPM-Report.yaml", { cwd: dir });
    expect(readFileSync(built.serverFile, "utf8")).toContain("surveycpm_process_passages_with_citation");
    const result = await runPipeline("AgentCPM-Report.yaml", { cwd: dir, overrides: generation() });
    expect(result.variables.final_survey_ls).toEqual([REPORT]);
  });
});
