/**
 * The commonest sink rule: one argument of a call must not come from the request (a path to open, a
 * template to compile, a URL to redirect to). The language says which call and which argument; the
 * verdict comes from the table for that kind of sink.
 */
import type { Node } from "../../treesitter.ts";
import type { Call } from "./calls.ts";
import type { SinkRule } from "./engine.ts";
import { reportFlow, type FlowTable } from "./verdicts.ts";

export function flowRule(rule: {
  id: string;
  anchor: RegExp;
  when?: SinkRule["when"];
  /** The argument that matters, or undefined when this call is not the sink after all. */
  argument: (call: Call) => Node | undefined;
  table: FlowTable;
  message: (call: Call, from: string) => string;
}): SinkRule {
  return {
    id: rule.id,
    anchor: rule.anchor,
    ...(rule.when ? { when: rule.when } : {}),
    async check(hit) {
      const call = hit.call;
      const value = call && rule.argument(call);
      if (!call || !value) return null;
      return reportFlow(hit, rule.id, value, rule.table, (from) => rule.message(call, from));
    },
  };
}
