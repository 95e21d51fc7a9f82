/**
 * servers/custom (spec §5.9): the small text utilities the example pipelines chain between retrieval
 * and generation — answer extraction, query extraction, Search-o1's per-item histories, passage
 * merging and citation ids — and the SurveyCPM agent's state machine (surveycpm.ts). Functions over
 * batches; nothing here mutates its inputs (the engine shares values with the pool).
 */
import { defineServer, listArg, stringListArg, ToolError } from "./define.ts";
import { surveyState, surveycpmTools, type SurveyState } from "./surveycpm.ts";

/** Content of the LAST `\boxed{…}`, braces balanced; undefined without one. */
function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf("\\boxed{");
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start + 6; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start + 7, i);
  }
  return text.slice(start + 7); // unbalanced: everything after the opening brace
}

export function extractFromBoxed(answer: string): string {
  const boxed = lastBoxed(answer);
  let s = (boxed ?? answer).trim();
  if (boxed !== undefined) {
    if (s.length >= 2 && s.startsWith("$") && s.endsWith("$")) s = s.slice(1, -1).trim();
    if (s.startsWith("\\(") && s.endsWith("\\)")) s = s.slice(2, -2).trim();
    s = s.replace(/\\text\{([^{}]*)\}/g, "$1");
    if (s.startsWith("(") && s.endsWith(")")) s = s.slice(1, -1).trim();
  }
  return s.replace(/\\/g, " ").replace(/ {2}/g, " ");
}

/** Last capture of `re` (global), stripped, with "?" appended; `fallback` when nothing matches. */
function lastQuery(text: string, re: RegExp, fallback: string): string {
  const matches = [...text.matchAll(re)];
  if (matches.length === 0) return fallback;
  const q = (matches[matches.length - 1]![1] ?? "").trim();
  return q.endsWith("?") ? q : `${q}?`;
}

const SEARCH_QUERY = /<\|begin_search_query\|>([\s\S]*?)<\|end_search_query\|>/g;

type CitationState = { registry: Map<number, Map<string, number>> } & SurveyState;

const perItem = (name: string, output: string, tool: string, fn: (a: string) => string) => ({
  params: [name],
  output,
  run: (args: Record<string, unknown>) => ({ [output.split("->")[1]!]: stringListArg(args, name, tool).map(fn) }),
});

/** A list of passage lists (ret_psg); a flat list of strings is one item's passages per entry. */
function passageLists(args: Record<string, unknown>, name: string, tool: string): string[][] {
  return listArg(args, name, tool).map((item, i) => {
    const list = Array.isArray(item) ? item : [item];
    return list.map((p, j) => {
      if (typeof p === "string") return p;
      throw new ToolError(`${tool}: passage ${j} of item ${i} in \`${name}\` must be text`);
    });
  });
}

export const custom = defineServer<CitationState>({
  name: "custom",
  defaults: { surveycpm_hard_mode: false, surveycpm_max_step: 140, surveycpm_max_extend_step: 12 },
  state: () => ({ registry: new Map(), ...surveyState() }),
  tools: {
    output_extract_from_boxed: perItem(
      "ans_ls",
      "ans_ls->pred_ls",
      "custom.output_extract_from_boxed",
      extractFromBoxed,
    ),
    search_r1_query_extract: perItem("ans_ls", "ans_ls->extract_query_list", "custom.search_r1_query_extract", (a) =>
      lastQuery(a, /<search>([^<]*)/g, "There is no query."),
    ),
    // Upstream's pattern is `<\|begin_of_query\|>([^<]*)` inside a raw string, i.e. alternations (quirk Q8, reproduced).
    r1_searcher_query_extract: perItem(
      "ans_ls",
      "ans_ls->extract_query_list",
      "custom.r1_searcher_query_extract",
      (a) => lastQuery(a, /<|begin_of_query|>([^<]*)/g, "There is no query."),
    ),
    iterretgen_nextquery: {
      params: ["q_ls", "ans_ls"],
      // Positional spec: `ans_ls` defaults to the pool's ret_psg (quirk Q14, reproduced).
      output: "q_ls,ret_psg->nextq_ls",
      run(args) {
        const q = listArg(args, "q_ls", "custom.iterretgen_nextquery");
        const a = listArg(args, "ans_ls", "custom.iterretgen_nextquery");
        const n = Math.min(q.length, a.length);
        return { nextq_ls: Array.from({ length: n }, (_, i) => `${pyStr(q[i])} ${pyStr(a[i])}`) };
      },
    },
    ircot_get_first_sent: perItem("ans_ls", "ans_ls->q_ls", "custom.ircot_get_first_sent", (a) =>
      (/(.+?[。！？.!?])/.exec(a)?.[1] ?? a).trim(),
    ),
    ircot_extract_ans: perItem("ans_ls", "ans_ls->pred_ls", "custom.ircot_extract_ans", (a) =>
      (/so the answer is[\s:]*([^\n]*)/i.exec(a)?.[1] ?? a).trim(),
    ),
    search_o1_init_list: {
      params: ["q_ls"],
      output: "q_ls->total_subq_list,total_reason_list,total_final_info_list",
      run(args) {
        const n = listArg(args, "q_ls", "custom.search_o1_init_list").length;
        const pads = () => Array.from({ length: n }, () => ["<PAD>"]);
        return { total_subq_list: pads(), total_reason_list: pads(), total_final_info_list: pads() };
      },
    },
    search_o1_query_extract: perItem("ans_ls", "ans_ls->extract_query_list", "custom.search_o1_query_extract", (a) => {
      const m = [...a.matchAll(SEARCH_QUERY)].pop();
      return m
        ? m[1]!
            .split(/\s+/)
            .filter(Boolean)
            .join(" ")
            .replace(/^["']+|["']+$/g, "")
        : "";
    }),
    search_o1_reasoning_extract: perItem(
      "ans_ls",
      "ans_ls->extract_reason_list",
      "custom.search_o1_reasoning_extract",
      (a) => a.split("<|begin_search_query|>")[0]!.trim(),
    ),
    search_o1_extract_final_information: perItem(
      "ans_ls",
      "ans_ls->extract_final_infor_list",
      "custom.search_o1_extract_final_information",
      (a) => {
        const marker = "**Final Information**";
        const at = a.indexOf(marker);
        return at < 0 ? "" : `${marker}\n${a.slice(at + marker.length).trim()}`;
      },
    ),
    search_o1_combine_list: {
      params: ["total_subq_list", "extract_query_list", "total_reason_list", "extract_reason_list"],
      output:
        "total_subq_list, extract_query_list, total_reason_list, extract_reason_list->total_subq_list, total_reason_list",
      run(args) {
        const tool = "custom.search_o1_combine_list";
        return {
          total_subq_list: appendEach(args, "total_subq_list", "extract_query_list", tool),
          total_reason_list: appendEach(args, "total_reason_list", "extract_reason_list", tool),
        };
      },
    },
    search_o1_combine_final_information: {
      params: ["total_final_info_list", "extract_final_infor_list"],
      output: "total_final_info_list, extract_final_infor_list->total_final_info_list",
      run: (args) => ({
        total_final_info_list: appendEach(
          args,
          "total_final_info_list",
          "extract_final_infor_list",
          "custom.search_o1_combine_final_information",
        ),
      }),
    },
    merge_passages: {
      params: ["temp_psg", "ret_psg"],
      output: "temp_psg,ret_psg->ret_psg",
      run(args) {
        const temp = listArg(args, "temp_psg", "custom.merge_passages");
        const ret = listArg(args, "ret_psg", "custom.merge_passages");
        if (temp.length < ret.length)
          throw new ToolError(`custom.merge_passages: temp_psg has ${temp.length} items but ret_psg has ${ret.length}`);
        const asList = (v: unknown) => (Array.isArray(v) ? v : [v]);
        return { ret_psg: ret.map((r, i) => [...asList(r), ...asList(temp[i])]) };
      },
    },
    evisrag_output_extract_from_special: perItem(
      "ans_ls",
      "ans_ls->pred_ls",
      "custom.evisrag_output_extract_from_special",
      (a) => (/<answer>([\s\S]*?)<\/answer>/.exec(a)?.[1] ?? a).trim(),
    ),
    assign_citation_ids: {
      params: ["ret_psg"],
      output: "ret_psg->ret_psg",
      run: (args) => ({
        ret_psg: passageLists(args, "ret_psg", "custom.assign_citation_ids").map((docs) =>
          docs.map((d, k) => `[${k + 1}] ${d.trim()}`),
        ),
      }),
    },
    init_citation_registry: {
      params: ["q_ls"],
      output: "q_ls->q_ls",
      run(args, _ctx, state) {
        state.registry.clear();
        return { q_ls: listArg(args, "q_ls", "custom.init_citation_registry") };
      },
    },
    assign_citation_ids_stateful: {
      params: ["ret_psg"],
      output: "ret_psg->ret_psg",
      run(args, _ctx, state) {
        const lists = passageLists(args, "ret_psg", "custom.assign_citation_ids_stateful");
        return {
          ret_psg: lists.map((docs, i) => {
            let ids = state.registry.get(i);
            if (!ids) state.registry.set(i, (ids = new Map()));
            return docs.map((d) => {
              const key = d.trim();
              let id = ids.get(key);
              if (id === undefined) ids.set(key, (id = ids.size + 1));
              return `[${id}] ${key}`;
            });
          }),
        };
      },
    },
    ...surveycpmTools,
  },
});

/**
 * Search-o1's per-item histories: item i's bucket gets item i's new entry, the first replacing the
 * `["<PAD>"]` placeholder. Zipped as upstream: buckets beyond the new entries are returned unchanged.
 */
function appendEach(args: Record<string, unknown>, buckets: string, entries: string, tool: string): unknown[][] {
  const have = listArg(args, buckets, tool);
  const add = listArg(args, entries, tool);
  return have.map((bucket, i) => {
    if (!Array.isArray(bucket))
      throw new ToolError(`${tool}: item ${i} of \`${buckets}\` must be a list (search_o1_init_list makes them)`);
    if (i >= add.length) return [...bucket];
    return bucket.length === 1 && bucket[0] === "<PAD>" ? [add[i]] : [...bucket, add[i]];
  });
}

/** Python's str() for the values f-strings see (None, True, numbers, text). */
function pyStr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
}
