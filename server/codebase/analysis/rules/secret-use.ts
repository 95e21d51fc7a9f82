/**
 * Weak primitives (a fast hash, a predictable random) are fine for checksums and shuffles; they are a
 * finding only where the call guards a secret, which its statement or enclosing function names.
 */
import type { Call } from "./calls.ts";
import { inSecretContext, report, type Hit, type SinkRule, type Verdict } from "./engine.ts";

export function secretUseRule(rule: {
  id: string;
  anchor: RegExp;
  when?: SinkRule["when"];
  verdict: Verdict;
  message: (hit: Hit, call: Call) => string;
}): SinkRule {
  return {
    id: rule.id,
    anchor: rule.anchor,
    ...(rule.when ? { when: rule.when } : {}),
    check(hit) {
      if (!hit.call || !inSecretContext(hit.call.node)) return null;
      return report(hit, rule.id, rule.verdict, rule.message(hit, hit.call));
    },
  };
}
