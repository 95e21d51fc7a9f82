/**
 * servers/router (spec §5.8): tools that label each item of a batch with a state. Each returns, per
 * output key, one `{data, state}` record per item (same order); the engine wraps the variable with
 * `branch<k>_state` and runs the matching `branches:` lists. No parameter.yaml upstream.
 */
import { defineServer, listArg, stringListArg, ToolError, type ToolArgs } from "./define.ts";

type Routed = { data: unknown; state: string };

/** One input list routed by a per-item rule, returned under the same key. */
function route(key: string, tool: string, rule: (item: unknown, i: number) => string) {
  return (args: ToolArgs) => ({
    [key]: listArg(args, key, tool).map((data, i): Routed => ({ data, state: rule(data, i) })),
  });
}

/** A string-valued rule: items that are not text are an error, not a silent state. */
function routeText(key: string, tool: string, rule: (text: string) => string) {
  return (args: ToolArgs) => ({
    [key]: stringListArg(args, key, tool).map((data): Routed => ({ data, state: rule(data) })),
  });
}

/** Several lists routed together by the state computed from one of them. */
function routeTogether(
  keys: readonly string[],
  tool: string,
  stateOf: (lists: Record<string, unknown[]>, i: number) => string,
) {
  return (args: ToolArgs) => {
    const lists = Object.fromEntries(keys.map((k) => [k, listArg(args, k, tool)]));
    const n = lists[keys[0]!]!.length;
    for (const k of keys)
      if (lists[k]!.length !== n)
        throw new ToolError(`${tool}: \`${k}\` has ${lists[k]!.length} items but \`${keys[0]}\` has ${n}`);
    const states = Array.from({ length: n }, (_, i) => stateOf(lists, i));
    return Object.fromEntries(keys.map((k) => [k, lists[k]!.map((data, i): Routed => ({ data, state: states[i]! }))]));
  };
}

const SEARCH_O1 = ["ans_ls", "q_ls", "total_subq_list", "total_reason_list", "total_final_info_list"] as const;
const SURVEYCPM = ["state_ls", "cursor_ls", "survey_ls", "step_ls", "extend_time_ls", "extend_result_ls"] as const;

export const router = defineServer({
  name: "router",
  defaults: {},
  tools: {
    route1: {
      params: ["query_list"],
      output: "query_list",
      run: route("query_list", "router.route1", (q) => {
        const n = typeof q === "number" ? q : typeof q === "string" && /^\s*[+-]?\d+\s*$/.test(q) ? Number(q) : NaN;
        if (Number.isNaN(n))
          throw new ToolError(
            `router.route1: ${JSON.stringify(q)} is not a whole number (route1 sends 1 to state1, any other number to state2)`,
          );
        return n === 1 ? "state1" : "state2";
      }),
    },
    route2: { params: ["query_list"], output: "query_list", run: route("query_list", "router.route2", () => "state2") },
    ircot_check_end: {
      params: ["ans_ls"],
      output: "ans_ls",
      run: routeText("ans_ls", "router.ircot_check_end", (a) =>
        a.toLowerCase().includes("so the answer is") ? "complete" : "incomplete",
      ),
    },
    search_r1_check: {
      params: ["ans_ls"],
      output: "ans_ls",
      run: routeText("ans_ls", "router.search_r1_check", (a) =>
        a.includes("<|endoftext|>") || a.includes("<|im_end|>") ? "complete" : "incomplete",
      ),
    },
    r1_searcher_check: {
      params: ["ans_ls"],
      output: "ans_ls",
      run: routeText("ans_ls", "router.r1_searcher_check", (a) =>
        a.includes("<|endoftext|>") || a.includes("<|im_end|>") || a.includes("</answer>") ? "complete" : "incomplete",
      ),
    },
    webnote_check_page: {
      params: ["page_ls"],
      output: "page_ls",
      run: routeText("page_ls", "router.webnote_check_page", (p) =>
        p.toLowerCase().includes("to be filled") ? "incomplete" : "complete",
      ),
    },
    check_model_state: {
      params: ["ans_ls"],
      output: "ans_ls",
      run: routeText("ans_ls", "router.check_model_state", (a) => (a.includes("<search>") ? "continue" : "stop")),
    },
    search_o1_check: {
      params: SEARCH_O1,
      output: SEARCH_O1.join(","),
      run: routeTogether(SEARCH_O1, "router.search_o1_check", (l, i) =>
        String(l.ans_ls![i]).includes("<|end_search_query|>") ? "retrieve" : "stop",
      ),
    },
    surveycpm_state_router: {
      params: SURVEYCPM,
      output: SURVEYCPM.join(","),
      run: routeTogether(SURVEYCPM, "router.surveycpm_state_router", (l, i) => {
        const s = l.state_ls![i];
        if (typeof s !== "string" || s === "")
          throw new ToolError(
            `router.surveycpm_state_router: item ${i} of state_ls must be a state name, got ${JSON.stringify(s)}`,
          );
        return s;
      }),
    },
  },
});
