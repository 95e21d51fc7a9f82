/**
 * The taint pass of one file (JavaScript/TypeScript/TSX and Python): interpret the parse tree,
 * turn sink hits into findings with their traces, and keep what other files need — what each
 * exported function does with its parameters, and the calls this file makes into other files with
 * untrusted arguments — for the cross-file link (link.ts). A pathological file ends its own analysis
 * with a note; it never throws.
 */
import type { Node } from "../../treesitter.ts";
import { finding, type RuleContext } from "../rules/context.ts";
import type { Finding } from "../types.ts";
import { TaintAbort, type Analyzer, type FunctionSummary } from "./analyzer.ts";
import { JsAnalyzer } from "./js/interp.ts";
import { PyAnalyzer } from "./py/interp.ts";
import { calibratedConfidence, flowCounts, hitToFinding, WEAKNESSES } from "./report.ts";
import { deepFlows, line, snippet, type Flow, type Val } from "./values.ts";

export { WEAKNESSES } from "./report.ts";

/** A flow as it crosses a thread or file boundary (sets become arrays). */
export interface PlainFlow {
  origin: Flow["origin"];
  source: string;
  steps: Flow["steps"];
  cleaned: string[];
  structured: boolean;
  secret: boolean;
}

export interface OutgoingCall {
  specifier: string;
  name: string;
  line: number;
  what: string;
  /** Untrusted arguments by position. */
  args: { index: number; flow: PlainFlow }[];
}

export interface FileTaint {
  exports: FunctionSummary[];
  calls: OutgoingCall[];
}

export interface TaintResult {
  findings: Finding[];
  /** Why the analysis stopped early, if it did (which file is the caller's to add). */
  note: string | null;
  summary: FileTaint | null;
}

export const DEFAULT_TAINT_BUDGET_MS = 3000;

export function taintLanguage(ctx: RuleContext): "js" | "python" | null {
  if (ctx.grammar === "python") return "python";
  if (ctx.grammar === "javascript" || ctx.grammar === "typescript" || ctx.grammar === "tsx") return "js";
  return null;
}

export function runTaint(ctx: RuleContext, budgetMs = DEFAULT_TAINT_BUDGET_MS): TaintResult {
  const lang = taintLanguage(ctx);
  if (!lang || !ctx.tree) return { findings: [], note: null, summary: null };
  const analyzer = lang === "js" ? new JsAnalyzer(ctx, budgetMs) : new PyAnalyzer(ctx, budgetMs);
  let note: string | null = null;
  try {
    analyzer.run(ctx.tree.rootNode);
  } catch (err) {
    if (err instanceof TaintAbort) note = err.message;
    else if (err instanceof RangeError) note = "taint analysis stopped: recursion too deep";
    else note = `taint analysis failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!note && ctx.tree.rootNode.hasError)
    note = `taint analysis: parse errors (from line ${firstError(ctx.tree.rootNode)}); analysed what parsed`;
  return { findings: toFindings(ctx, analyzer), note, summary: summaryOf(analyzer) };
}

function toFindings(ctx: RuleContext, a: Analyzer): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const hit of a.hits) {
    if (hit.flow.origin === "param") continue;
    const f = hitToFinding(ctx, hit);
    if (!f) continue;
    const key = `${f.ruleId}:${f.startLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  for (const c of a.configHits) {
    const spec = WEAKNESSES[c.kind];
    const why =
      c.kind === "cookie"
        ? "the cookie can travel over plain HTTP or be read by scripts"
        : "whatever a template prints is written into the page as HTML (cross-site scripting)";
    const f = finding(
      ctx,
      spec.ruleId,
      spec.severity,
      calibratedConfidence(spec.ruleId),
      c.line,
      c.endLine,
      `${c.message}: ${why}`,
    );
    if (f) out.push(f);
  }
  return out;
}

function summaryOf(a: Analyzer): FileTaint {
  const analyzer = a as JsAnalyzer | PyAnalyzer;
  const calls: OutgoingCall[] = [];
  for (const c of analyzer.importedCalls) {
    const args: OutgoingCall["args"] = [];
    c.args.forEach((v: Val, index: number) => {
      const flow = deepFlows(v).find((f) => f.origin !== "param" && f.origin !== "random");
      if (flow) args.push({ index, flow: plain(flow) });
    });
    if (args.length)
      calls.push({ specifier: c.specifier, name: c.name, line: line(c.node), what: snippet(c.node as Node, 50), args });
  }
  return { exports: analyzer.summaries, calls };
}

export function plain(f: Flow): PlainFlow {
  return {
    origin: f.origin,
    source: f.source,
    steps: f.steps,
    cleaned: [...f.cleaned],
    structured: f.structured,
    secret: f.secret,
  };
}

export function revive(f: PlainFlow): Flow {
  return { ...f, cleaned: new Set(f.cleaned as Flow["cleaned"] extends ReadonlySet<infer W> ? W[] : never) };
}

function firstError(root: Node): number {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === "ERROR" || n.isMissing) return n.startPosition.row + 1;
    for (let i = n.childCount - 1; i >= 0; i--) {
      const c = n.child(i);
      if (c?.hasError || c?.type === "ERROR" || c?.isMissing) stack.push(c);
    }
  }
  return 1;
}

export { flowCounts };
