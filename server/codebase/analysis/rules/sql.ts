/**
 * SQL injection, one rule for every language: a query call whose first argument reads like SQL and
 * is built from request input (or, less surely, from any non-constant value). Languages differ only
 * in the calls that run SQL, how sure a "tainted but not visibly built" string is, and the advice.
 */
import type { Node } from "../../treesitter.ts";
import type { Call } from "./calls.ts";
import { byFlow, FLOW_WORDS, report, type SinkRule } from "./engine.ts";

export const SQL_WORDS =
  /\b(?:select|insert|update|delete|from|where|into|values|drop|create|alter|union|order\s+by|group\s+by)\b/i;

export function sqlInjectionRule(opts: {
  anchor: RegExp;
  advice: string;
  dynamicConfidence: number;
  taintedSourceIsBuilt?: boolean;
  /** The argument holding the SQL (default the first; some APIs take a context or destination first). */
  sqlArgument?: (call: Call) => Node | undefined;
}): SinkRule {
  return {
    id: "injection/sql",
    anchor: opts.anchor,
    async check(hit) {
      const call = hit.call;
      if (!call) return null;
      const sql = opts.sqlArgument ? opts.sqlArgument(call) : call.args[0];
      if (!sql) return null;
      const resolved = await hit.flow.resolveIdentifier(sql);
      if (!SQL_WORDS.test(resolved.text.slice(0, 2000))) return null;
      const flow = await hit.flow.classify(sql);
      const built = (await hit.flow.isBuiltString(sql)) || (opts.taintedSourceIsBuilt === true && flow === "source");
      const verdict = byFlow(flow, {
        source: ["critical", 0.9],
        tainted: built ? ["critical", 0.85] : ["high", 0.7],
        dynamic: built ? ["high", opts.dynamicConfidence] : null,
      });
      return report(
        hit,
        "injection/sql",
        verdict,
        `SQL passed to ${call.callee}() is built from ${FLOW_WORDS[flow]}${opts.advice}`,
      );
    },
  };
}
