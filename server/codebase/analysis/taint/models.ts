/**
 * The one kind of table both interpreters read for calls: an ordered list of models, each saying
 * when it applies (a callee pattern, a receiver kind, a method, a predicate) and what the call does
 * (the sinks it reports, the value it returns, what its callbacks receive). The JS table
 * (`js/calls.ts`) and the Python one (`py/calls.ts`) hold the libraries' knowledge; the rules here
 * (`applyModels`, `sinkModel`, `sanitizerModel`, `sourceModel`) are the only code that reads them.
 *
 * Order matters: the first model that applies and answers wins; a model that answers `undefined`
 * (it reported a sink but the call is also something else) lets the next one look.
 */
import type { Node } from "../../treesitter.ts";
import type { Analyzer } from "./analyzer.ts";
import {
  clean,
  EMPTY,
  join,
  joinAll,
  line,
  snippet,
  sourceVal,
  stringify,
  type Origin,
  type Val,
  type Weakness,
} from "./values.ts";

/** What both interpreters know about a call site. */
export interface ModelSite {
  node: Node;
  /** Canonical callee: a module path when known ("child_process.exec", "os.system"), else the text. */
  callee: string;
  method: string;
  recv?: Val;
  args: Val[];
  argNodes: Node[];
}

/** What a modelled call gives back. */
export interface Modelled {
  result?: Val;
  /** Values each callback argument receives, by argument index. */
  callbackArgs?: (Val[] | undefined)[];
}

export interface CallModel<A extends Analyzer, S extends ModelSite> {
  /** What the model stands for, for a reader of the table ("command: os.system"). */
  what: string;
  /** The canonical callee (`S["callee"]`, or `key` when given) matches. */
  callee?: RegExp;
  /** The receiver's kind ("req", "flask-request"); "" means a receiver with no kind (a plain value). */
  recv?: string | RegExp;
  method?: RegExp;
  when?: (site: S, a: A) => boolean;
  then: (a: A, site: S) => Modelled | undefined;
}

export type ModelTable<A extends Analyzer, S extends ModelSite> = readonly CallModel<A, S>[];

function kindMatches(want: string | RegExp, kind: string | undefined): boolean {
  if (typeof want === "string") return want === "" ? !kind : kind === want;
  return kind !== undefined && want.test(kind);
}

/**
 * The first model of `table` that applies to the call and answers. `key` is the callee text the
 * patterns are matched against (the JS side normalises `fs.promises.x` to `fs.x`).
 */
export function applyModels<A extends Analyzer, S extends ModelSite>(
  table: ModelTable<A, S>,
  a: A,
  site: S,
  key: string = site.callee,
): Modelled | undefined {
  for (const m of table) {
    if (m.recv !== undefined && (!site.recv || !kindMatches(m.recv, site.recv.kind))) continue;
    if (m.callee && !m.callee.test(key)) continue;
    if (m.method && !m.method.test(site.method)) continue;
    if (m.when && !m.when(site, a)) continue;
    const out = m.then(a, site);
    if (out !== undefined) return out;
  }
  return undefined;
}

type Pick<S> = number | ((site: S) => Val | undefined);

const picked = <S extends ModelSite>(site: S, from: Pick<S>): Val | undefined =>
  typeof from === "number" ? site.args[from] : from(site);

/** A call whose argument reaches a sink of one weakness (`os.system(cmd)`, `eval(code)`). */
export function sinkModel<A extends Analyzer, S extends ModelSite>(spec: {
  what?: string;
  callee: RegExp;
  weakness: Weakness;
  /** Which argument (index, or a picker); 0 by default. */
  arg?: Pick<S>;
  /** Also data nested inside the value (an object's fields); true by default. */
  deep?: boolean;
  /** The sink's label; `callee()` by default. */
  label?: (site: S) => string;
  /** What the call returns; EMPTY by default. `"next"` reports and lets later models look. */
  result?: Val | "next" | ((site: S) => Val);
  /** What its callbacks receive, by argument index. */
  callbackArgs?: (site: S) => (Val[] | undefined)[];
  when?: (site: S, a: A) => boolean;
}): CallModel<A, S> {
  return {
    what: spec.what ?? `${spec.weakness}: ${spec.callee.source}`,
    callee: spec.callee,
    when: spec.when,
    then: (a, site) => {
      const label = spec.label ? spec.label(site) : `${site.callee}()`;
      a.sink(spec.weakness, picked(site, spec.arg ?? 0) ?? EMPTY, site.node, label, spec.deep ?? true);
      if (spec.result === "next") return undefined;
      const result = typeof spec.result === "function" ? spec.result(site) : (spec.result ?? EMPTY);
      return spec.callbackArgs ? { result, callbackArgs: spec.callbackArgs(site) } : { result };
    },
  };
}

/** A call that returns its input cleaned of some weaknesses (`html.escape`, `shlex.quote`). */
export function sanitizerModel<A extends Analyzer, S extends ModelSite>(spec: {
  what?: string;
  callee?: RegExp;
  cleans: readonly Weakness[] | "all";
  /** The first argument (default), all of them joined, or a picker. */
  input?: "first" | "all" | ((site: S) => Val);
  when?: (site: S, a: A) => boolean;
}): CallModel<A, S> {
  return {
    what: spec.what ?? `sanitizer: ${spec.callee?.source ?? ""}`,
    callee: spec.callee,
    when: spec.when,
    then: (_a, site) => {
      const input =
        typeof spec.input === "function"
          ? spec.input(site)
          : spec.input === "all"
            ? joinAll(site.args)
            : (site.args[0] ?? EMPTY);
      return { result: clean(stringify(input), spec.cleans) };
    },
  };
}

/** A call whose result is untrusted data of one origin (`input()`, `parse_args()`). */
export function sourceModel<A extends Analyzer, S extends ModelSite>(spec: {
  what?: string;
  callee?: RegExp;
  method?: RegExp;
  recv?: string | RegExp;
  origin: Origin;
  structured?: boolean;
  /** The whole container is the source (each field read is named as a source of its own). */
  whole?: boolean;
  /** Joined with the value of this argument (a default: `os.getenv("X", "dflt")`). */
  orArg?: number;
  when?: (site: S, a: A) => boolean;
}): CallModel<A, S> {
  return {
    what: spec.what ?? `source (${spec.origin}): ${spec.callee?.source ?? spec.method?.source ?? ""}`,
    callee: spec.callee,
    method: spec.method,
    recv: spec.recv,
    when: spec.when,
    then: (_a, site) => {
      const result = sourceAt(site.node, spec.origin, { structured: spec.structured, whole: spec.whole });
      return { result: spec.orArg === undefined ? result : joinOr(result, site.args[spec.orArg]) };
    },
  };
}

function joinOr(v: Val, other: Val | undefined): Val {
  return other ? join(v, other) : v;
}

/** A source value named after the code that produced it. */
export function sourceAt(
  n: Node,
  origin: Origin = "request",
  opts: { structured?: boolean; whole?: boolean } = {},
): Val {
  const v = sourceVal(origin, snippet(n, 50), stepAt(n), { structured: opts.structured ?? false });
  return opts.whole ? { ...v, meta: { whole: "1" } } : v;
}

export const stepAt = (n: Node) => ({ line: line(n), what: snippet(n, 50) });
