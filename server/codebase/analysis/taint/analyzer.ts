/**
 * What the JavaScript and Python interpreters share: scopes (flow-sensitive, forked at branches and
 * joined after), the sink check, function summaries (a callee is analysed in the caller's context and
 * memoised by the shape of its arguments, so recursion and repeated calls stay cheap), and the budget
 * that ends a pathological file's analysis with a note instead of stalling the import.
 */
import type { Node } from "../../treesitter.ts";
import type { RuleContext } from "../rules/context.ts";
import { flowCounts, type SinkHit } from "./report.ts";
import { clean, deepFlows, element, EMPTY, join, line, snippet, type Flow, type Val, type Weakness } from "./values.ts";

/** Thrown to end a file's analysis; the message is the note. */
export class TaintAbort extends Error {}

export type Refinement = readonly Weakness[] | "all";

/**
 * A variable whose value depends on a boolean flag: `if (flag) x = "c"` leaves `x` as `t` where the
 * flag held and `f` where it did not. A later `if (flag)` / `if (!flag)` on the same flag value reads
 * the matching side (correlated conditions), as long as neither the flag nor the variable changed.
 */
interface CondFact {
  flag: string;
  flagVal: Val | undefined;
  joined: Val;
  t: Val;
  f: Val;
}

export class Env {
  vars: Map<string, Val>;
  /** Facts from checks that dominate this point: `name` (or `a.b`) is clean for these weaknesses. */
  refined: Map<string, Refinement>;

  /** Values that depend on a flag tested before (see CondFact). */
  conds: Map<string, CondFact>;

  constructor(
    readonly parent?: Env,
    vars?: Map<string, Val>,
    refined?: Map<string, Refinement>,
    conds?: Map<string, CondFact>,
  ) {
    this.vars = vars ?? new Map();
    this.refined = refined ?? new Map();
    this.conds = conds ?? new Map();
  }

  /** This scope, then the ones around it. */
  private *chain(): Generator<Env> {
    yield this;
    for (let e = this.parent; e; e = e.parent) yield e;
  }

  lookup(name: string): Val | undefined {
    for (const e of this.chain()) {
      const v = e.vars.get(name);
      if (v) return v;
    }
    return undefined;
  }

  refinement(key: string): Refinement | undefined {
    for (const e of this.chain()) {
      const r = e.refined.get(key);
      if (r) return r;
    }
    return undefined;
  }

  declare(name: string, v: Val): void {
    this.vars.set(name, v);
    this.forget(name);
  }

  /** Assignment: the nearest scope that has the name, else this one. A strong update. */
  assign(name: string, v: Val): void {
    for (const e of this.chain())
      if (e.vars.has(name)) {
        e.vars.set(name, v);
        this.forget(name);
        return;
      }
    this.declare(name, v);
  }

  forget(name: string): void {
    for (const e of this.chain())
      for (const key of e.refined.keys()) if (key === name || key.startsWith(`${name}.`)) e.refined.delete(key);
  }

  refine(key: string, r: Refinement): void {
    const had = this.refinement(key);
    if (had === "all") return;
    this.refined.set(key, r === "all" || !had ? r : [...new Set([...had, ...r])]);
  }

  fork(): Env {
    return new Env(this.parent, new Map(this.vars), new Map(this.refined), new Map(this.conds));
  }

  /** Entering a branch on `flag` (holds or not): variables set under the same flag read that side. */
  applyFlag(flag: string, holds: boolean): void {
    const flagVal = this.lookup(flagVariable(flag));
    for (const e of this.chain())
      for (const [k, c] of e.conds)
        if (c.flag === flag && c.flagVal === flagVal && this.vars.get(k) === c.joined)
          this.vars.set(k, holds ? c.t : c.f);
  }

  /** After `if (flag)` joined `thenEnv` and `elseEnv` into this scope: remember each side of what differs. */
  rememberFlag(flag: string, holds: boolean, thenEnv: Env, elseEnv: Env): void {
    const flagVal = this.lookup(flagVariable(flag));
    for (const [k, joined] of this.vars) {
      const t = thenEnv.vars.get(k);
      const f = elseEnv.vars.get(k);
      if (k === flagVariable(flag) || !t || !f || t === f) continue;
      this.conds.set(k, { flag, flagVal, joined, t: holds ? t : f, f: holds ? f : t });
    }
  }

  /** After branches: every variable is the join of the branches that reach here; a check holds only if it held in all. */
  absorb(branches: Env[]): void {
    if (branches.length === 0) return;
    // A check that held on one branch becomes part of the variable's value there, so it survives
    // the join with a branch that reassigned the variable instead (`if x not in OK: x = "a"`).
    for (const b of branches)
      for (const [k, r] of b.refined) {
        if (!/^[A-Za-z_$][\w$]*$/.test(k)) continue;
        const v = b.vars.get(k) ?? (b.vars.has(k) ? undefined : this.lookup(k));
        if (v) b.vars.set(k, clean(v, r));
      }
    const keys = new Set<string>();
    for (const b of branches) for (const k of b.vars.keys()) keys.add(k);
    const vars = new Map<string, Val>();
    for (const k of keys) {
      let v: Val | undefined;
      for (const b of branches) v = join(v, b.vars.get(k) ?? this.vars.get(k) ?? EMPTY);
      vars.set(k, v ?? EMPTY);
    }
    this.vars = vars;
    const refined = new Map<string, Refinement>();
    for (const k of branches[0]!.refined.keys()) {
      if (branches.every((b) => b.refined.has(k))) {
        const all = branches.map((b) => b.refined.get(k)!);
        refined.set(
          k,
          all.every((x) => x === "all")
            ? "all"
            : all.reduce<Weakness[]>(
                (acc, x) => (x === "all" ? acc : acc.filter((w) => x.includes(w))),
                all.find((x) => x !== "all") === undefined ? [] : [...(all.find((x) => x !== "all") as Weakness[])],
              ),
        );
      }
    }
    this.refined = refined;
    for (const [k, c] of this.conds) if (this.vars.get(k) !== c.joined) this.conds.delete(k);
  }
}

/**
 * `flag`, `!flag`, `not flag`, and a comparison of a variable with a constant (`mode === "a"`,
 * `mode != 'a'`, `"a" == mode`) — in parentheses or not: the flag a condition tests, and whether it
 * holds. A comparison's flag is `variable\0constant`; the variable is what must not change between
 * the two tests (`flagVariable`).
 */
export function flagOf(cond: Node | null | undefined): { flag: string; holds: boolean } | null {
  let n = cond;
  let holds = true;
  for (let i = 0; n && i < 6; i++) {
    if (n.type === "parenthesized_expression") n = n.namedChildren[0];
    else if (n.type === "identifier") return { flag: n.text, holds };
    else if (n.type === "binary_expression" || n.type === "comparison_operator") {
      const c = comparisonFlag(n);
      return c ? { flag: c.flag, holds: c.equal === holds } : null;
    } else if (n.type === "not_operator") {
      n = n.childForFieldName("argument");
      holds = !holds;
    } else if (n.type === "unary_expression" && n.childForFieldName("operator")?.text === "!") {
      n = n.childForFieldName("argument");
      holds = !holds;
    } else return null;
  }
  return null;
}

/** The variable whose value a flag depends on (a comparison's variable, or the flag itself). */
export const flagVariable = (flag: string): string => flag.split("\0")[0]!;

const CONSTANT_TYPES = /^(?:string|number|integer|float|true|false|none|null)$/;

/** `x === "a"` / `x != 'a'` / `"a" == x` (JS and Python): the flag `x\0a` and whether it tests equality. */
function comparisonFlag(n: Node): { flag: string; equal: boolean } | null {
  const operands = n.namedChildren.filter((c): c is Node => !!c && c.type !== "comment");
  if (operands.length !== 2) return null;
  const op = n.children
    .filter((c) => c && !c.isNamed)
    .map((c) => c!.text)
    .join(" ");
  const equal = /^(?:===|==|is)$/.test(op);
  if (!equal && !/^(?:!==|!=|is not)$/.test(op)) return null;
  const [a, b] = operands as [Node, Node];
  const [v, k] = a.type === "identifier" && CONSTANT_TYPES.test(b.type) ? [a, b] : [b, a];
  if (v.type !== "identifier" || !CONSTANT_TYPES.test(k.type)) return null;
  if (k.namedChildren.some((c) => c?.type === "interpolation" || c?.type === "template_substitution")) return null;
  return { flag: `${v.text}\0${k.text.replace(/^[rbuRBU]*(['"])(.*)\1$/s, "$2")}`, equal };
}

/** One function's analysis result, memoised by argument shape; hits are replayed on a memo hit. */
interface Memo {
  ret: Val;
  hits: SinkHit[];
}

/** What an exported function does with its parameters (for callers in other files). */
export interface ParamSink {
  param: number;
  weakness: Weakness;
  steps: Flow["steps"];
  /** Weaknesses the parameter was cleaned of on its way to the sink. */
  cleaned: Weakness[];
  sink: string;
  line: number;
  endLine: number;
}

export interface FunctionSummary {
  name: string;
  sinks: ParamSink[];
  /** Parameters that flow into the return value (with the weaknesses they were cleaned of). */
  returns: { param: number; cleaned: Weakness[] }[];
}

export interface AnalyzerOptions {
  /** Wall-clock budget for the file (ms). */
  budgetMs: number;
  /** Deepest call chain followed into local functions. */
  maxCallDepth?: number;
}

/** A finding about configuration rather than data (a cookie without Secure / HttpOnly, escaping off). */
export interface ConfigHit {
  kind: "cookie" | "autoescape";
  line: number;
  endLine: number;
  message: string;
}

export abstract class Analyzer {
  readonly hits: SinkHit[] = [];
  readonly configHits: ConfigHit[] = [];
  /** One shared value a class's instances stand for (`this.x` / `self.x` written in one method, read in another). */
  private instances = new Map<string | number, Val>();
  /** What each exported function does with its parameters, for calls from other files. */
  readonly summaries: FunctionSummary[] = [];
  private hitKeys = new Set<string>();
  private memo = new Map<string, Memo>();
  private active = new Set<string>();
  /** Hits recorded while analysing the innermost memoised call (replayed on memo hits). */
  private recording: SinkHit[][] = [];
  /** Functions analysed in some context (the rest are analysed as entries at the end). */
  readonly analysed = new Set<number>();
  protected callDepth = 0;
  protected exprDepth = 0;
  private deadline: number;
  private ticks = 0;
  readonly maxCallDepth: number;

  constructor(
    readonly ctx: RuleContext,
    options: AnalyzerOptions,
  ) {
    this.deadline = performance.now() + options.budgetMs;
    this.maxCallDepth = options.maxCallDepth ?? 6;
  }

  tick(): void {
    if ((++this.ticks & 255) === 0 && performance.now() > this.deadline)
      throw new TaintAbort(`taint analysis stopped: over its time budget (${this.ticks} steps)`);
  }

  enter(): void {
    if (++this.exprDepth > 400) throw new TaintAbort("taint analysis stopped: expressions nested too deeply");
  }
  leave(): void {
    this.exprDepth--;
  }

  /** Untrusted data in `value` (or anything inside it, when `deep`) reaching a sink of `weakness`. */
  sink(weakness: Weakness, value: Val | undefined, node: Node, label: string, deep = true): boolean {
    if (!value) return false;
    const flows = deep ? deepFlows(value) : value.flows;
    let found = false;
    for (const flow of flows) {
      if (!flowCounts(flow, weakness)) continue;
      found = true;
      // A predictable random number is reported where it is made (the token is built from it there).
      const origin = weakness === "weak-random" ? flow.steps[0] : undefined;
      this.record({
        weakness,
        flow,
        sink: label,
        at: origin
          ? { line: origin.line, endLine: origin.line, what: origin.what }
          : { line: line(node), endLine: node.endPosition.row + 1, what: snippet(node) },
      });
    }
    return found;
  }

  config(kind: ConfigHit["kind"], node: Node, message: string): void {
    const l = line(node);
    if (!this.configHits.some((h) => h.line === l && h.kind === kind))
      this.configHits.push({ kind, line: l, endLine: node.endPosition.row + 1, message });
  }

  record(hit: SinkHit): void {
    for (const r of this.recording) r.push(hit);
    const key = `${hit.weakness}|${hit.at.file ?? ""}|${hit.at.line}|${hit.flow.origin}|${hit.flow.param ?? ""}`;
    if (this.hitKeys.has(key)) return;
    this.hitKeys.add(key);
    this.hits.push(hit);
  }

  protected instanceOf(cls: string | number): Val {
    let inst = this.instances.get(cls);
    if (!inst) {
      inst = { flows: [], fields: new Map() };
      this.instances.set(cls, inst);
    }
    return inst;
  }

  /** A generated or minified function body too large to follow ends the file's analysis with a note. */
  protected assertFollowable(fnName: string | undefined, fn: Node, body: Node): void {
    const size = body.endIndex - body.startIndex;
    if (size > 400_000)
      throw new TaintAbort(
        `taint analysis stopped: the function ${fnName ? `${fnName}() ` : ""}at line ${line(fn)} is enormous (${Math.round(size / 1024)} KB)`,
      );
  }

  /** A parameter of an exported function, tracked so the summary can say where it ends up. */
  protected symbolicParam(i: number, name: string, node: Node): Val {
    return {
      flows: [
        {
          origin: "param",
          param: i,
          source: name,
          steps: [{ line: line(node), what: `parameter ${name}` }],
          cleaned: new Set(),
          structured: true,
          secret: /pass(?:word|wd)?|pwd|secret/i.test(name),
        },
      ],
    };
  }

  /** Records the summary of `fn` (named `name`) from the sinks its parameters reached and what it returned. */
  protected summarise(name: string, fn: Node, ret: Val): void {
    const first = fn.startPosition.row + 1;
    const last = fn.endPosition.row + 1;
    const sinks = this.hits
      .filter((h) => h.flow.origin === "param" && h.at.line >= first && h.at.line <= last)
      .map((h) => ({
        param: h.flow.param!,
        weakness: h.weakness,
        steps: h.flow.steps,
        cleaned: [...h.flow.cleaned],
        sink: h.sink,
        line: h.at.line,
        endLine: h.at.endLine,
      }));
    const returns = deepFlows(ret)
      .filter((f) => f.origin === "param")
      .map((f) => ({ param: f.param!, cleaned: [...f.cleaned] }));
    this.summaries.push({ name, sinks, returns });
  }

  /**
   * An array, list or tuple literal: element i is field "i" (so `xs[0]` keeps its own taint) and every
   * element joins the value of an unknown index; a spread (`...xs`, `*xs`) joins its elements there.
   */
  protected sequence(children: readonly (Node | null)[], spreadType: string, valueOf: (c: Node) => Val): Val {
    const out: Val = { flows: [], fields: new Map(), elems: EMPTY };
    let i = 0;
    let spread = false;
    for (const c of children) {
      if (!c) continue;
      const v = valueOf(c);
      if (c.type === spreadType) {
        out.elems = join(out.elems, element(v));
        spread = true;
      } else {
        out.fields!.set(String(i++), v);
        out.elems = join(out.elems, v);
      }
    }
    // The length is known (for pushes that keep positions) unless a spread added an unknown number.
    if (!spread) out.meta = { len: String(i) };
    return out;
  }

  /**
   * Analyse `fn` with these arguments, once per argument shape. Recursion and over-deep chains get
   * a conservative answer: the join of the arguments (data passes through, nothing is reported).
   */
  callFunction(fnNode: Node, args: Val[], run: () => Val): Val {
    this.analysed.add(fnNode.id);
    const key = `${fnNode.id}(${args.map((a) => shape(a, 2)).join(",")})`;
    const memo = this.memo.get(key);
    if (memo) {
      for (const h of memo.hits) this.record(h);
      return memo.ret;
    }
    if (this.active.has(key) || this.callDepth >= this.maxCallDepth) return passThrough(args);
    this.active.add(key);
    this.callDepth++;
    const hits: SinkHit[] = [];
    this.recording.push(hits);
    try {
      const ret = run();
      this.memo.set(key, { ret, hits });
      return ret;
    } finally {
      this.recording.pop();
      this.callDepth--;
      this.active.delete(key);
    }
  }
}

function passThrough(args: Val[]): Val {
  return { flows: args.flatMap((a) => deepFlows(a)).slice(0, 3) };
}

/**
 * The part of a value that can change what a function does with it: its flows, its model kind, a
 * function passed as a callback, and (bounded) fields that hold flows. Values with none of these
 * share one shape, so calls with nothing to track hit the memo.
 */
function shape(v: Val, depth: number): string {
  let s = v.kind ?? "";
  if (v.fn) s += `f${v.fn.node.id}`;
  if (v.meta?.type) s += `m${v.meta.type}`;
  for (const f of v.flows)
    s += `[${f.origin}${f.param ?? ""}${f.structured ? "s" : ""}${f.secret ? "p" : ""}:${[...f.cleaned].sort().join("")}]`;
  if (depth > 0 && v.fields) {
    let inner = "";
    for (const [k, fv] of v.fields) {
      if (fv.fn) continue;
      const sub = shape(fv, depth - 1);
      if (sub) inner += `${k}:${sub},`;
    }
    if (inner) s += `{${inner}}`;
  }
  if (depth > 0 && v.elems) {
    const sub = shape(v.elems, depth - 1);
    if (sub) s += `<${sub}>`;
  }
  return s;
}
