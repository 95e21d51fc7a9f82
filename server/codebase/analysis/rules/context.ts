/**
 * What every Argus rule gets (the file's text and, when it has a grammar, its parse tree) and the
 * helpers they share: anchoring on a keyword found in the text, climbing to the call around it, and
 * building findings. Rules anchor on text first because a regex over the source is far cheaper than
 * visiting every call node; the tree then confirms the shape (a call, its arguments, not a comment).
 */
import { lineLocator } from "../../../lib/line-locator.ts";
import type { GrammarId, Node, Tree } from "../../treesitter.ts";
import { SEVERITIES, type Finding, type Severity } from "../types.ts";

export interface RuleContext {
  path: string;
  language: string;
  grammar: GrammarId | null;
  source: string;
  tree: Tree | null;
  /** Test, spec, fixture or mock file: findings are reported one severity lower, less confident. */
  isTest: boolean;
}

const TEST_PATH =
  /(^|\/)(tests?|__tests__|__mocks__|spec|specs|fixtures?|testdata|mocks?)\/|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py)$|(^|\/)test_[^/]*\.py$|(^|\/)conftest\.py$|Tests?\.java$/i;

export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path);
}

export function makeContext(
  path: string,
  language: string,
  grammar: GrammarId | null,
  source: string,
  tree: Tree | null,
): RuleContext {
  return { path, language, grammar, source, tree, isTest: isTestPath(path) };
}

/** 1-based line of a string index (the locator is built once per file's context). */
const locators = new WeakMap<RuleContext, (index: number) => number>();
export function lineOf(ctx: RuleContext, index: number): number {
  let locate = locators.get(ctx);
  if (!locate) {
    locate = lineLocator(ctx.source);
    locators.set(ctx, locate);
  }
  return locate(index);
}

const SUPPRESS = /argus-ignore|nosec\b/;

/** The text of line `n` (1-based), bounded so a minified line never gets copied whole. */
function lineText(ctx: RuleContext, n: number): string {
  let start = 0;
  for (let i = 1; i < n; i++) {
    const next = ctx.source.indexOf("\n", start);
    if (next < 0) return "";
    start = next + 1;
  }
  const end = ctx.source.indexOf("\n", start);
  return ctx.source.slice(start, Math.min(end < 0 ? ctx.source.length : end, start + 2000));
}

/**
 * A finding at [startLine, endLine], unless an `argus-ignore` / `nosec` comment on the line or the
 * line above suppresses it. Test files: one severity lower, confidence × 0.6.
 */
export function finding(
  ctx: RuleContext,
  ruleId: string,
  severity: Severity,
  confidence: number,
  startLine: number,
  endLine: number,
  message: string,
): Finding | null {
  if (SUPPRESS.test(lineText(ctx, startLine)) || (startLine > 1 && SUPPRESS.test(lineText(ctx, startLine - 1))))
    return null;
  let sev = severity;
  let conf = confidence;
  if (ctx.isTest) {
    sev = SEVERITIES[Math.min(SEVERITIES.indexOf(severity) + 1, SEVERITIES.length - 1)]!;
    conf = confidence * 0.6;
    message = `${message} (in a test file)`;
  }
  return {
    tool: "argus",
    ruleId,
    severity: sev,
    confidence: Math.round(conf * 100) / 100,
    file: ctx.path,
    startLine,
    endLine,
    message,
  };
}

export function nodeFinding(
  ctx: RuleContext,
  node: Node,
  ruleId: string,
  severity: Severity,
  confidence: number,
  message: string,
): Finding | null {
  return finding(ctx, ruleId, severity, confidence, node.startPosition.row + 1, node.endPosition.row + 1, message);
}

/** Every match of a global regex in the source (regexes must be linear: they run on any input). */
export function* matchAll(source: string, re: RegExp): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    yield m;
    if (m[0].length === 0) re.lastIndex++;
  }
}

/** Node types that are not code: an anchor inside one of these is ignored. */
const NOT_CODE = new Set([
  "comment",
  "line_comment",
  "block_comment",
  "string_fragment",
  "string_content",
  "string",
  "template_string",
  "interpreted_string_literal",
  "raw_string_literal",
  "string_literal",
  "escape_sequence",
  "ERROR",
]);

/** The smallest named node at a text offset, or null if it is inside a comment or a string. */
export function codeNodeAt(ctx: RuleContext, index: number): Node | null {
  const node = ctx.tree?.rootNode.namedDescendantForIndex(index, index + 1) ?? null;
  if (!node || NOT_CODE.has(node.type)) return null;
  return node;
}

export const truncate = (text: string, max = 80) => {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
};
