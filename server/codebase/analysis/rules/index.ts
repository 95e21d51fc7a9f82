/**
 * Argus's own rules for one file: secrets and process-wide TLS switches on the text of every file,
 * then the sink rules of the file's grammar on its parse tree (the one the symbol pass already made).
 */
import type { GrammarId } from "../../treesitter.ts";
import type { Finding } from "../types.ts";
import type { RuleContext } from "./context.ts";
import type { SinkRule } from "./engine.ts";
import { runSinkRules } from "./engine.ts";
import { FlowAnalysis } from "./flow.ts";
import { GO_RULES } from "./go.ts";
import { JAVA_RULES } from "./java.ts";
import { JS_RULES } from "./javascript.ts";
import { PYTHON_RULES } from "./python.ts";
import { RUST_RULES } from "./rust.ts";
import { runSecretRules } from "./secrets.ts";
import { runTextRules } from "./text.ts";

export { makeContext, isTestPath, type RuleContext } from "./context.ts";

const SINK_RULES: Record<GrammarId, SinkRule[]> = {
  javascript: JS_RULES,
  typescript: JS_RULES,
  tsx: JS_RULES,
  python: PYTHON_RULES,
  go: GO_RULES,
  java: JAVA_RULES,
  rust: RUST_RULES,
};

/** Rule families, the first segment of every Argus rule id. */
export const RULE_FAMILIES = [
  "secrets",
  "injection",
  "deserialization",
  "path-traversal",
  "tls",
  "crypto",
  "redirect",
] as const;

export async function runArgusRules(ctx: RuleContext): Promise<Finding[]> {
  const findings = [...runSecretRules(ctx), ...runTextRules(ctx)];
  if (ctx.grammar && ctx.tree)
    findings.push(...(await runSinkRules(ctx, new FlowAnalysis(ctx), SINK_RULES[ctx.grammar])));
  return findings.sort((a, b) => a.startLine - b.startLine || a.ruleId.localeCompare(b.ruleId));
}
