/**
 * servers/prompt (spec §5.4) — declared only: every prompt's signature (its template comes from a
 * `*_template` parameter; names missing from parameter.yaml stay pool variables, as upstream — so
 * `gen_subq` fails validation with the shipped parameters, check P2.2). Rendering follows later.
 */
import { defineServer, type ToolDef } from "./define.ts";

/** A prompt whose last parameter `template` reads the given parameter (or pool variable). */
const prompt = (inputs: string[], template: string): ToolDef<undefined> => ({
  params: [...inputs, "template"],
  output: `${[...inputs, template].join(",")}->prompt_ls`,
});
const SURVEY = ["instruction_ls", "survey_ls", "cursor_ls", "retrieved_info_ls"];

export const promptServer = defineServer({
  name: "prompt",
  defaults: {
    template: "prompt/qa_boxed.jinja",
    kr_template: "prompt/RankCoT_knowledge_refinement.jinja",
    qa_template: "prompt/RankCoT_question_answering.jinja",
    search_r1_gen_template: "prompt/search_r1_append.jinja",
    r1_searcher_gen_template: "prompt/r1_searcher_append.jinja",
    searcho1_reasoning_template: "prompt/search_o1_reasoning.jinja",
    searcho1_refine_template: "prompt/search_o1_refinement.jinja",
    webnote_gen_plan_template: "prompt/webnote_gen_plan.jinja",
    webnote_init_page_template: "prompt/webnote_init_page.jinja",
    webnote_gen_subq_template: "prompt/webnote_gen_subq.jinja",
    webnote_fill_page_template: "prompt/webnote_fill_page.jinja",
    webnote_gen_answer_template: "prompt/webnote_gen_answer.jinja",
    surveycpm_search_template: "prompt/surveycpm_search.jinja",
    surveycpm_init_plan_template: "prompt/surveycpm_init_plan.jinja",
    surveycpm_write_template: "prompt/surveycpm_write.jinja",
    surveycpm_extend_plan_template: "prompt/surveycpm_extend_plan.jinja",
  },
  prompts: {
    qa_boxed: prompt(["q_ls"], "template"),
    qa_with_memory: prompt(["q_ls", "global_memory_content", "project_memory_content"], "template"),
    qa_boxed_multiple_choice: prompt(["q_ls", "choices_ls"], "template"),
    qa_rag_boxed: prompt(["q_ls", "ret_psg"], "template"),
    qa_rag_with_memory: prompt(["q_ls", "global_memory_content", "project_memory_content", "ret_psg"], "template"),
    qa_rag_boxed_multiple_choice: prompt(["q_ls", "choices_ls", "ret_psg"], "template"),
    RankCoT_kr: prompt(["q_ls", "ret_psg"], "kr_template"),
    RankCoT_qa: prompt(["q_ls", "kr_ls"], "qa_template"),
    ircot_next_prompt: prompt(["memory_q_ls", "memory_ret_psg"], "template"),
    webnote_gen_plan: prompt(["q_ls"], "webnote_gen_plan_template"),
    webnote_init_page: prompt(["q_ls", "plan_ls"], "webnote_init_page_template"),
    webnote_gen_subq: prompt(["q_ls", "plan_ls", "page_ls"], "webnote_gen_subq_template"),
    webnote_fill_page: prompt(["q_ls", "plan_ls", "page_ls", "subq_ls", "psg_ls"], "webnote_fill_page_template"),
    webnote_gen_answer: prompt(["q_ls", "page_ls"], "webnote_gen_answer_template"),
    search_r1_gen: prompt(["prompt_ls", "ans_ls", "ret_psg"], "search_r1_gen_template"),
    r1_searcher_gen: prompt(["prompt_ls", "ans_ls", "ret_psg"], "r1_searcher_gen_template"),
    search_o1_init: prompt(["q_ls"], "searcho1_reasoning_template"),
    search_o1_reasoning_indocument: prompt(
      ["extract_query_list", "ret_psg", "total_reason_list"],
      "searcho1_refine_template",
    ),
    search_o1_insert: prompt(["q_ls", "total_subq_list", "total_final_info_list"], "searcho1_reasoning_template"),
    gen_subq: prompt(["q_ls", "ret_psg"], "gen_subq_template"),
    check_passages: prompt(["q_ls", "ret_psg"], "check_psg_template"),
    evisrag_vqa: prompt(["q_ls", "ret_psg"], "evisrag_template"),
    surveycpm_search: prompt(SURVEY, "surveycpm_search_template"),
    surveycpm_init_plan: prompt(SURVEY, "surveycpm_init_plan_template"),
    surveycpm_write: prompt(SURVEY, "surveycpm_write_template"),
    surveycpm_extend_plan: prompt(SURVEY, "surveycpm_extend_plan_template"),
  },
});
