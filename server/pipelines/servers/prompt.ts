/**
 * servers/prompt (spec §5.4): every prompt renders a Jinja2 template file (its path from a
 * `*_template` parameter) once per item, returning `prompt_ls`. Rendering is sandboxed (jinja.ts:
 * UltraRAG's escaping of string inputs, Python's printing of values, no host access); template paths
 * stay inside the run's directory (template-files.ts). Prompts zip their list inputs, truncating to
 * the shortest, as upstream. Names missing from parameter.yaml stay pool variables, as upstream — so
 * `gen_subq` fails validation with the shipped parameters (check P2.2).
 */
import type { CallContext } from "./contract.ts";
import { defineServer, describe, listArg, ToolError, type ToolArgs, type ToolDef } from "./define.ts";
import { renderTemplate, TemplateError } from "./jinja.ts";
import { detailedTaskNote, parseSurvey, taskNote } from "./survey.ts";
import { loadTemplate } from "./template-files.ts";
import { isUnset, messageText } from "../engine/values.ts";

type Vars = Record<string, unknown>;
type Build = (args: ToolArgs) => Vars[];

/** Prompts that render one template per item; `named` gives them their `run` (it knows the name). */
const builders = new WeakMap<ToolDef<undefined>, Build>();

/** A prompt whose last parameter `template` reads the given parameter (or pool variable). */
function prompt(inputs: string[], template: string, build?: Build): ToolDef<undefined> {
  const def: ToolDef<undefined> = {
    params: [...inputs, "template"],
    output: `${[...inputs, template].join(",")}->prompt_ls`,
  };
  if (build) builders.set(def, build);
  return def;
}

async function renderEach(ctx: CallContext, template: unknown, tool: string, items: Vars[]): Promise<string[]> {
  const program = await loadTemplate(ctx, template, tool);
  return items.map((vars, i) => {
    try {
      return renderTemplate(program, vars, String(template));
    } catch (err) {
      if (err instanceof TemplateError) throw new ToolError(`${tool}: item ${i}: ${err.message}`);
      throw err;
    }
  });
}

/** The text of a value a prompt receives (a previous prompt may be an MCP PromptMessage). */
const text = (v: unknown): unknown => messageText(v) ?? v;

/** SurveyCPM's retrieved information (`"<PAD>"` before the first search). */
const information = (v: unknown) => (v === "<PAD>" || v === null || v === undefined ? "" : text(v));

/** One item's passages as a list of strings (a single string is one passage; UNSET is none). */
function passages(v: unknown, tool: string, name: string, i: number): string[] {
  if (v === null || v === undefined || isUnset(v)) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((p, j) => {
    if (typeof p === "string") return p;
    if (p !== null && typeof p === "object" && typeof (p as { contents?: unknown }).contents === "string")
      return (p as { contents: string }).contents;
    throw new ToolError(`${tool}: passage ${j} of item ${i} in \`${name}\` must be text, got ${describe(p)}`);
  });
}

/** zip(*lists): one tuple per index up to the shortest list. */
function zip(args: ToolArgs, names: string[], tool: string): unknown[][] {
  const lists = names.map((n) => listArg(args, n, tool));
  const n = Math.min(...lists.map((l) => l.length));
  return Array.from({ length: n }, (_, i) => lists.map((l) => l[i]));
}

const joined = (v: unknown, tool: string, name: string, i: number, limit?: number) =>
  passages(v, tool, name, i).slice(0, limit).join("\n");

/** A string or per-item list input (memory contents): the i-th item, or the value itself. */
const perItem = (v: unknown, i: number) => (Array.isArray(v) ? v[i] : v);

function choicesText(v: unknown, tool: string, i: number): string {
  if (!Array.isArray(v)) throw new ToolError(`${tool}: choices of item ${i} must be a list, got ${describe(v)}`);
  return v.map((c, k) => `${String.fromCharCode(65 + k)}: ${String(c)}`).join("\n");
}

/** The previous reasoning steps Search-o1 shows: up to three as they are, else the first and the last three, numbered 1… */
function reasoningSteps(v: unknown): string {
  const steps = Array.isArray(v) ? v : [v];
  const shown = steps.length <= 3 ? steps : [steps[0], ...steps.slice(-3)];
  return shown.map((s, k) => `Step ${k + 1}: ${pyStr(s)}`).join("\n\n");
}

/** Search-o1's inserted search history: one query/result pair per round (zipped), unescaped, as upstream. */
function searchHistory(queries: unknown, results: unknown): string {
  const q = Array.isArray(queries) ? queries : [queries];
  const r = Array.isArray(results) ? results : [results];
  return q
    .slice(0, r.length)
    .map(
      (query, k) =>
        `<|begin_search_query|>${pyStr(query)}<|end_search_query|>\n<|begin_search_result|>${pyStr(r[k])}<|end_search_result|>`,
    )
    .join("");
}

/** Python's str() of a value a prompt prints (None, True, numbers, text). */
function pyStr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return typeof v === "string" ? v : (messageText(v) ?? (typeof v === "object" ? JSON.stringify(v) : String(v)));
}

/** IRCoT's next prompt over the rounds so far (memory histories: one list per round). */
function ircot(args: ToolArgs, tool: string): Vars[] {
  const rounds = listArg(args, "memory_q_ls", tool) as unknown[];
  const psgRounds = listArg(args, "memory_ret_psg", tool) as unknown[];
  const first = rounds[0];
  if (!Array.isArray(first)) throw new ToolError(`${tool}: memory_q_ls must hold one list of questions per round`);
  const out: Vars[] = [];
  first.forEach((q, i) => {
    if (q === null || q === undefined || isUnset(q)) return;
    const docs: string[] = [];
    for (const r of psgRounds) if (Array.isArray(r)) docs.push(...passages(r[i], tool, "memory_ret_psg", i));
    const answers = rounds
      .slice(1)
      .map((r) => (Array.isArray(r) ? r[i] : undefined))
      .filter((a) => typeof a === "string" && a !== "");
    out.push({ documents: docs.join("\n"), question: text(q), cur_answer: answers.join(" ") });
  });
  return out;
}

/** Gives each one-template-per-item prompt its `run`, named so errors say which prompt failed. */
function named(defs: Record<string, ToolDef<undefined>>): Record<string, ToolDef<undefined>> {
  for (const [name, def] of Object.entries(defs)) {
    const build = builders.get(def);
    if (build)
      def.run = async (args, ctx) => ({
        prompt_ls: await renderEach(ctx, args.template, `prompt.${name}`, build(args)),
      });
  }
  return defs;
}

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
  prompts: named({
    qa_boxed: prompt(["q_ls"], "template", (a) =>
      zip(a, ["q_ls"], "prompt.qa_boxed").map(([q]) => ({ question: text(q) })),
    ),
    qa_with_memory: prompt(["q_ls", "global_memory_content", "project_memory_content"], "template", (a) =>
      zip(a, ["q_ls"], "prompt.qa_with_memory").map(([q], i) => ({
        question: text(q),
        global_memory: perItem(a.global_memory_content, i) ?? "",
        project_memory: joined(
          perItem(a.project_memory_content, i),
          "prompt.qa_with_memory",
          "project_memory_content",
          i,
        ),
      })),
    ),
    qa_boxed_multiple_choice: prompt(["q_ls", "choices_ls"], "template", (a) =>
      zip(a, ["q_ls", "choices_ls"], "prompt.qa_boxed_multiple_choice").map(([q, c], i) => ({
        question: text(q),
        choices: choicesText(c, "prompt.qa_boxed_multiple_choice", i),
      })),
    ),
    qa_rag_boxed: prompt(["q_ls", "ret_psg"], "template", (a) =>
      zip(a, ["q_ls", "ret_psg"], "prompt.qa_rag_boxed").map(([q, p], i) => ({
        question: text(q),
        documents: joined(p, "prompt.qa_rag_boxed", "ret_psg", i),
      })),
    ),
    qa_rag_with_memory: prompt(
      ["q_ls", "global_memory_content", "project_memory_content", "ret_psg"],
      "template",
      (a) =>
        zip(a, ["q_ls", "ret_psg"], "prompt.qa_rag_with_memory").map(([q, p], i) => ({
          question: text(q),
          global_memory: perItem(a.global_memory_content, i) ?? "",
          project_memory: joined(
            perItem(a.project_memory_content, i),
            "prompt.qa_rag_with_memory",
            "project_memory_content",
            i,
          ),
          documents: joined(p, "prompt.qa_rag_with_memory", "ret_psg", i),
        })),
    ),
    qa_rag_boxed_multiple_choice: prompt(["q_ls", "choices_ls", "ret_psg"], "template", (a) =>
      zip(a, ["q_ls", "choices_ls", "ret_psg"], "prompt.qa_rag_boxed_multiple_choice").map(([q, c, p], i) => ({
        question: text(q),
        documents: joined(p, "prompt.qa_rag_boxed_multiple_choice", "ret_psg", i),
        choices: choicesText(c, "prompt.qa_rag_boxed_multiple_choice", i),
      })),
    ),
    RankCoT_kr: prompt(["q_ls", "ret_psg"], "kr_template", (a) =>
      zip(a, ["q_ls", "ret_psg"], "prompt.RankCoT_kr").map(([q, p], i) => ({
        question: text(q),
        documents: joined(p, "prompt.RankCoT_kr", "ret_psg", i),
      })),
    ),
    RankCoT_qa: prompt(["q_ls", "kr_ls"], "qa_template", (a) =>
      zip(a, ["q_ls", "kr_ls"], "prompt.RankCoT_qa").map(([q, k]) => ({ question: text(q), CoT: text(k) })),
    ),
    ircot_next_prompt: prompt(["memory_q_ls", "memory_ret_psg"], "template", (a) =>
      ircot(a, "prompt.ircot_next_prompt"),
    ),
    webnote_gen_plan: prompt(["q_ls"], "webnote_gen_plan_template", (a) =>
      zip(a, ["q_ls"], "prompt.webnote_gen_plan").map(([q]) => ({ question: text(q) })),
    ),
    webnote_init_page: prompt(["q_ls", "plan_ls"], "webnote_init_page_template", (a) =>
      zip(a, ["q_ls", "plan_ls"], "prompt.webnote_init_page").map(([q, p]) => ({ question: text(q), plan: text(p) })),
    ),
    webnote_gen_subq: prompt(["q_ls", "plan_ls", "page_ls"], "webnote_gen_subq_template", (a) =>
      zip(a, ["q_ls", "plan_ls", "page_ls"], "prompt.webnote_gen_subq").map(([q, p, g]) => ({
        question: text(q),
        plan: text(p),
        page: text(g),
      })),
    ),
    webnote_fill_page: prompt(["q_ls", "plan_ls", "page_ls", "subq_ls", "psg_ls"], "webnote_fill_page_template", (a) =>
      zip(a, ["q_ls", "plan_ls", "page_ls", "subq_ls", "psg_ls"], "prompt.webnote_fill_page").map(
        ([q, p, g, s, d], i) => ({
          question: text(q),
          plan: text(p),
          sub_question: text(s),
          // A list, as upstream (printed whole it shows as a list; templates may loop over it).
          docs_text: passages(d, "prompt.webnote_fill_page", "psg_ls", i),
          page: text(g),
        }),
      ),
    ),
    webnote_gen_answer: prompt(["q_ls", "page_ls"], "webnote_gen_answer_template", (a) =>
      zip(a, ["q_ls", "page_ls"], "prompt.webnote_gen_answer").map(([q, g]) => ({ page: text(g), question: text(q) })),
    ),
    search_r1_gen: prompt(["prompt_ls", "ans_ls", "ret_psg"], "search_r1_gen_template", (a) =>
      zip(a, ["prompt_ls", "ans_ls", "ret_psg"], "prompt.search_r1_gen").map(([h, ans, p], i) => ({
        history: text(h),
        answer: text(ans),
        passages: joined(p, "prompt.search_r1_gen", "ret_psg", i, 3),
      })),
    ),
    r1_searcher_gen: prompt(["prompt_ls", "ans_ls", "ret_psg"], "r1_searcher_gen_template", (a) =>
      zip(a, ["prompt_ls", "ans_ls", "ret_psg"], "prompt.r1_searcher_gen").map(([h, ans, p], i) => ({
        history: text(h),
        answer: text(ans),
        passages: joined(p, "prompt.r1_searcher_gen", "ret_psg", i, 5),
      })),
    ),
    search_o1_init: prompt(["q_ls"], "searcho1_reasoning_template", (a) =>
      zip(a, ["q_ls"], "prompt.search_o1_init").map(([q]) => ({ question: text(q) })),
    ),
    search_o1_reasoning_indocument: prompt(
      ["extract_query_list", "ret_psg", "total_reason_list"],
      "searcho1_refine_template",
      (a) =>
        zip(a, ["extract_query_list", "ret_psg", "total_reason_list"], "prompt.search_o1_reasoning_indocument").map(
          ([q, p, r], i) => ({
            prev_reasoning: reasoningSteps(r),
            search_query: text(q),
            document: joined(p, "prompt.search_o1_reasoning_indocument", "ret_psg", i),
          }),
        ),
    ),
    search_o1_insert: {
      ...prompt(["q_ls", "total_subq_list", "total_final_info_list"], "searcho1_reasoning_template"),
      async run(args, ctx) {
        const tool = "prompt.search_o1_insert";
        const rows = zip(args, ["q_ls", "total_subq_list", "total_final_info_list"], tool);
        const rendered = await renderEach(
          ctx,
          args.template,
          tool,
          rows.map(([q]) => ({ question: text(q) })),
        );
        // The search history is appended after rendering, unescaped, as upstream.
        return { prompt_ls: rendered.map((p, i) => p + searchHistory(rows[i]![1], rows[i]![2])) };
      },
    },
    gen_subq: prompt(["q_ls", "ret_psg"], "gen_subq_template", (a) =>
      zip(a, ["q_ls", "ret_psg"], "prompt.gen_subq").map(([q, p], i) => ({
        question: text(q),
        documents: joined(p, "prompt.gen_subq", "ret_psg", i),
      })),
    ),
    check_passages: prompt(["q_ls", "ret_psg"], "check_psg_template", (a) =>
      zip(a, ["q_ls", "ret_psg"], "prompt.check_passages").map(([q, p], i) => ({
        question: text(q),
        documents: joined(p, "prompt.check_passages", "ret_psg", i),
      })),
    ),
    evisrag_vqa: {
      ...prompt(["q_ls", "ret_psg"], "evisrag_template"),
      async run(args, ctx) {
        const tool = "prompt.evisrag_vqa";
        const rows = zip(args, ["q_ls", "ret_psg"], tool);
        const rendered = await renderEach(
          ctx,
          args.template,
          tool,
          rows.map(([q]) => ({ question: text(q) })),
        );
        // One <image> tag per retrieved image, where the template has its one tag.
        return {
          prompt_ls: rendered.map((p, i) => {
            const n = Array.isArray(rows[i]![1]) ? (rows[i]![1] as unknown[]).length : 1;
            return p.replace("<image>", "<image>".repeat(n));
          }),
        };
      },
    },
    surveycpm_search: prompt(["instruction_ls", "survey_ls", "cursor_ls"], "surveycpm_search_template", (a) =>
      zip(a, ["instruction_ls", "survey_ls", "cursor_ls"], "prompt.surveycpm_search").map(([q, s, c], i) => ({
        user_query: text(q),
        current_outline: taskNote(parseSurvey(s, "prompt.surveycpm_search", i)),
        current_instruction: `You need to update ${pyStr(c)}`,
      })),
    ),
    surveycpm_init_plan: prompt(["instruction_ls", "retrieved_info_ls"], "surveycpm_init_plan_template", (a) =>
      zip(a, ["instruction_ls", "retrieved_info_ls"], "prompt.surveycpm_init_plan").map(([q, r]) => ({
        user_query: text(q),
        current_information: information(r),
      })),
    ),
    surveycpm_write: prompt(
      ["instruction_ls", "survey_ls", "cursor_ls", "retrieved_info_ls"],
      "surveycpm_write_template",
      (a) =>
        zip(a, ["instruction_ls", "survey_ls", "cursor_ls", "retrieved_info_ls"], "prompt.surveycpm_write").map(
          ([q, s, c, r], i) => ({
            user_query: text(q),
            current_survey: detailedTaskNote(parseSurvey(s, "prompt.surveycpm_write", i)),
            current_instruction: `You need to update ${pyStr(c)}`,
            current_information: information(r),
          }),
        ),
    ),
    surveycpm_extend_plan: prompt(["instruction_ls", "survey_ls"], "surveycpm_extend_plan_template", (a) =>
      zip(a, ["instruction_ls", "survey_ls"], "prompt.surveycpm_extend_plan").map(([q, s], i) => ({
        user_query: text(q),
        current_survey: taskNote(parseSurvey(s, "prompt.surveycpm_extend_plan", i)),
      })),
    ),
  }),
});
