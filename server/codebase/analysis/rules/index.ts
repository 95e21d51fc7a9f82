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
import { runTaint, taintLanguage, type FileTaint } from "../taint/index.ts";

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
  "xss",
  "ssrf",
  "xxe",
  "trust-boundary",
  "cookie",
] as const;

/**
 * Sink rules the taint engine replaces on JavaScript/TypeScript and Python: it follows the data
 * (across functions, containers, branches, sanitizers) where these read the text of one function.
 * The rest (TLS switches, weak ciphers, weak hashes and randoms named as secrets) stay: they are
 * about the call itself, not where its argument came from.
 */
const REPLACED_BY_TAINT = new Set([
  "injection/command",
  "injection/code",
  "injection/sql",
  "injection/template",
  "deserialization/unsafe",
  "path-traversal",
  "redirect/open",
]);

export interface RulesOptions {
  /** false runs the pre-taint heuristics only (the bench's baseline). Default true. */
  taint?: boolean;
  /** Wall-clock budget of the taint pass of this file (ms). */
  taintBudgetMs?: number;
}

export interface RulesResult {
  findings: Finding[];
  /** Why the taint analysis of this file stopped early. */
  note: string | null;
  /** What other files need from this one (exported functions' summaries, outgoing calls). */
  taint: FileTaint | null;
  /** The taint engine analysed the whole file (it parsed, and nothing stopped the analysis). */
  taintComplete: boolean;
}

export async function runArgusRules(ctx: RuleContext, options: RulesOptions = {}): Promise<Finding[]> {
  return (await runArgusRulesDetailed(ctx, options)).findings;
}

export async function runArgusRulesDetailed(ctx: RuleContext, options: RulesOptions = {}): Promise<RulesResult> {
  const findings = [...runSecretRules(ctx), ...runTextRules(ctx)];
  const useTaint = options.taint !== false && taintLanguage(ctx) !== null && !!ctx.tree;
  let note: string | null = null;
  let taint: FileTaint | null = null;
  if (ctx.grammar && ctx.tree) {
    const rules = useTaint
      ? SINK_RULES[ctx.grammar].filter((r) => !REPLACED_BY_TAINT.has(r.id))
      : SINK_RULES[ctx.grammar];
    findings.push(...(await runSinkRules(ctx, new FlowAnalysis(ctx), rules)));
  }
  if (useTaint) {
    const result = runTaint(ctx, options.taintBudgetMs);
    note = result.note;
    taint = result.summary;
    // One finding per line and rule: the taint finding (with its trace) wins over a heuristic one.
    const taken = new Set(result.findings.map((f) => `${f.ruleId}:${f.startLine}`));
    for (let i = findings.length - 1; i >= 0; i--)
      if (taken.has(`${findings[i]!.ruleId}:${findings[i]!.startLine}`)) findings.splice(i, 1);
    findings.push(...result.findings);
  }
  findings.sort((a, b) => a.startLine - b.startLine || a.ruleId.localeCompare(b.ruleId));
  return { findings, note, taint, taintComplete: useTaint && note === null };
}
