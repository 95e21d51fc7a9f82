/**
 * How a sink rule is declared and run: a regex finds candidate places in the text (group 1, when
 * present, marks the callee name); the tree turns each into a call (or a node); the rule's check
 * decides, usually from how request input flows into an argument.
 */
import type { Node } from "../../treesitter.ts";
import type { Finding, Severity } from "../types.ts";
import { callAt, type Call } from "./calls.ts";
import { codeNodeAt, matchAll, nodeFinding, type RuleContext } from "./context.ts";
import type { Flow, FlowAnalysis } from "./flow.ts";

export interface Hit {
  ctx: RuleContext;
  flow: FlowAnalysis;
  match: RegExpExecArray;
  /** The named node at the anchor (never inside a comment or string). */
  node: Node;
  /** The call whose callee holds the anchor, if any. */
  call: Call | null;
}

export interface SinkRule {
  id: string;
  /** Global regex with the `d` flag; group 1 (optional) is the anchor. */
  anchor: RegExp;
  /** Cheap file-level precondition, e.g. "imports child_process". */
  when?: (ctx: RuleContext) => boolean;
  /** Anchors inside string literals count (e.g. a key name in a JSON-ish object). */
  inStrings?: boolean;
  check: (hit: Hit) => Promise<Finding | null> | Finding | null;
}

export type Verdict = readonly [Severity, number] | null;

/** Severity and confidence for each way input can reach a sink; null = no finding. */
export function byFlow(flow: Flow, table: Partial<Record<Flow, Verdict>>): Verdict {
  return table[flow] ?? null;
}

export function report(hit: Hit, ruleId: string, verdict: Verdict, message: string, node?: Node): Finding | null {
  if (!verdict) return null;
  return nodeFinding(hit.ctx, node ?? hit.call?.node ?? hit.node, ruleId, verdict[0], verdict[1], message);
}

export const FLOW_WORDS: Record<Flow, string> = {
  source: "request input",
  tainted: "a value derived from request input",
  dynamic: "a string built at run time",
  constant: "a constant",
};

export async function runSinkRules(ctx: RuleContext, flow: FlowAnalysis, rules: SinkRule[]): Promise<Finding[]> {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    if (rule.when && !rule.when(ctx)) continue;
    for (const match of matchAll(ctx.source, rule.anchor)) {
      const index = anchorIndex(match);
      const node = rule.inStrings
        ? ctx.tree?.rootNode.namedDescendantForIndex(index, index + 1)
        : codeNodeAt(ctx, index);
      if (!node) continue;
      const result = await rule.check({ ctx, flow, match, node, call: callAt(ctx, index) });
      if (!result) continue;
      const key = `${result.ruleId}:${result.startLine}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(result);
    }
  }
  return out;
}

/** Start of the first capture group that took part in the match (alternations use several). */
function anchorIndex(match: RegExpExecArray): number {
  const groups = match.indices;
  if (groups) for (let i = 1; i < groups.length; i++) if (groups[i]) return groups[i]![0];
  return match.index;
}

/** Words around a sink that say it handles a secret (a weak hash of a password, a random token). */
export const SECRET_CONTEXT =
  /pass(?:word|wd|phrase)?|pwd|secret|credential|salt|token|nonce|otp|csrf|session|api[_-]?key|reset|invite|verif/i;

/** The statement around a node, for context checks (bounded: a minified line is not a statement). */
export function statementText(node: Node): string {
  let n: Node = node;
  for (let i = 0; i < 10 && n.parent; i++) {
    n = n.parent;
    if (/statement|declaration|declarator|assignment|definition|pair|return|expression_statement/.test(n.type)) break;
  }
  return n.text.slice(0, 400);
}

const FUNCTION_NODES =
  /^(?:function_declaration|function_definition|function_expression|function_item|generator_function_declaration|arrow_function|method_definition|method_declaration|constructor_declaration|func_literal|lambda|lambda_expression|closure_expression)$/;

/** The name of the function a node is in (its name often says what a hash or random is for). */
export function enclosingFunctionName(node: Node): string {
  for (let n = node.parent; n; n = n.parent) {
    if (FUNCTION_NODES.test(n.type)) {
      const name = n.childForFieldName("name")?.text;
      if (name) return name;
      const parentName = n.parent?.childForFieldName("name")?.text ?? n.parent?.childForFieldName("left")?.text;
      if (parentName) return parentName;
    }
  }
  return "";
}

export function inSecretContext(node: Node): boolean {
  return SECRET_CONTEXT.test(statementText(node)) || SECRET_CONTEXT.test(enclosingFunctionName(node));
}
