/**
 * The abstract values the taint interpreter computes: a value carries the flows of untrusted data
 * that reached it (each with its trace), its known fields (field-sensitive objects and dicts), the
 * join of its elements (arrays, sets, maps, lists), a known constant, and what it is when the model
 * knows (a request object, a response, a module, a function). Values are small and mostly immutable;
 * field writes mutate in place so aliases see them.
 */
import type { Node } from "../../treesitter.ts";

/** Weaknesses a sink can have; each maps to one rule id (report.ts). */
export type Weakness =
  | "xss"
  | "sql"
  | "nosql"
  | "command"
  | "code"
  | "template"
  | "path"
  | "redirect"
  | "ssrf"
  | "xpath"
  | "ldap"
  | "xxe"
  | "deserialization"
  | "trust-boundary"
  | "weak-hash"
  | "weak-random"
  | "cookie"
  | "autoescape";

/**
 * Where untrusted data came from. "random" only matters where a secret is made; "param" is symbolic;
 * "env" is kept for the trace but trusted (the operator sets it); "queue" is a job or message payload.
 */
export type Origin = "request" | "argv" | "env" | "stdin" | "file" | "queue" | "random" | "param";

export interface Step {
  file?: string;
  line: number;
  /** What happens here, e.g. "req.query.name", "name = …", "db.query(…)". */
  what: string;
}

export interface Flow {
  origin: Origin;
  /** The source as written, e.g. "req.query.id". */
  source: string;
  steps: readonly Step[];
  /** Weaknesses this flow can no longer cause (it was escaped, converted, checked …). */
  cleaned: ReadonlySet<Weakness>;
  /** May be an object or array (a JSON body): query operators can be injected. */
  structured: boolean;
  /** The source names a password or secret (for weak hashes). */
  secret: boolean;
  /** Symbolic parameter index (function summaries). */
  param?: number;
}

export interface FnValue {
  node: Node;
  /** The environment the function closes over. */
  closure: unknown;
  /** Bound `this` / `self` (methods of a class instance). */
  self?: Val;
  name: string;
}

export interface Val {
  flows: readonly Flow[];
  fields?: Map<string, Val>;
  elems?: Val;
  /** A model-known kind: "req", "res", "koa", "flask-request", "module" … */
  kind?: string;
  /** For modules and imported names: the dotted path ("child_process.exec"). */
  path?: string;
  fn?: FnValue;
  /** A known constant (string, number, boolean, null). `hasConst` tells undefined apart. */
  c?: string | number | boolean | null;
  hasConst?: boolean;
  /** The literal text of a string assembled here (for "does this read like SQL?"), bounded. */
  frag?: string;
  /** Extra facts a model keeps on a value (a response's content type, a parser's options). */
  meta?: Record<string, string>;
}

export const EMPTY: Val = Object.freeze({ flows: [] }) as Val;
const NO_CLEAN: ReadonlySet<Weakness> = new Set();

export const MAX_FLOWS = 3;
const MAX_STEPS = 14;
const MAX_FRAG = 400;

export function constant(c: string | number | boolean | null): Val {
  return { flows: [], c, hasConst: true, frag: typeof c === "string" ? c.slice(0, MAX_FRAG) : undefined };
}

export function sourceVal(
  origin: Origin,
  source: string,
  step: Step,
  opts: { structured?: boolean; secret?: boolean } = {},
): Val {
  return {
    flows: [
      {
        origin,
        source,
        steps: [step],
        cleaned: NO_CLEAN,
        structured: opts.structured ?? false,
        secret: opts.secret ?? /pass(?:word|wd)?|pwd|secret|credential/i.test(source),
      },
    ],
  };
}

export function withFlows(flows: readonly Flow[]): Val {
  return flows.length ? { flows } : EMPTY;
}

export function isTainted(v: Val | undefined): boolean {
  return !!v && deepFlows(v).length > 0;
}

/** The flows of a value and of everything inside it (bounded depth), for sinks that take a whole value. */
export function deepFlows(v: Val, depth = 3): Flow[] {
  const out: Flow[] = [...v.flows];
  if (depth > 0) {
    if (v.fields) for (const f of v.fields.values()) out.push(...deepFlows(f, depth - 1));
    if (v.elems) out.push(...deepFlows(v.elems, depth - 1));
  }
  return dedupe(out);
}

function dedupe(flows: Flow[]): Flow[] {
  if (flows.length <= 1) return flows;
  const seen = new Set<string>();
  const out: Flow[] = [];
  // Prefer request flows, then the shortest trace: the clearest story for a reader.
  const ranked = [...flows].sort(
    (a, b) => rank(a) - rank(b) || a.steps.length - b.steps.length || a.cleaned.size - b.cleaned.size,
  );
  for (const f of ranked) {
    const key = `${f.origin}|${f.source}|${f.param ?? ""}|${[...f.cleaned].sort().join(",")}|${f.structured}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
    if (out.length >= MAX_FLOWS) break;
  }
  return out;
}

const rank = (f: Flow) => (f.origin === "request" ? 0 : f.origin === "param" ? 1 : f.origin === "random" ? 3 : 2);

export function mergeFlows(...lists: (readonly Flow[])[]): Flow[] {
  const all: Flow[] = [];
  for (const l of lists) all.push(...l);
  return dedupe(all);
}

/** The join of two values at a merge point (both branches may have run). */
export function join(a: Val | undefined, b: Val | undefined, depth = 0): Val {
  if (!a || a === EMPTY) return b ?? EMPTY;
  if (!b || b === EMPTY || a === b) return a;
  const out: Val = { flows: mergeFlows(a.flows, b.flows) };
  if (depth < 4 && (a.fields || b.fields)) {
    out.fields = new Map(a.fields);
    for (const [k, v] of b.fields ?? []) out.fields.set(k, join(out.fields.get(k), v, depth + 1));
  }
  if (a.elems || b.elems) out.elems = depth < 4 ? join(a.elems, b.elems, depth + 1) : (a.elems ?? b.elems);
  if (a.kind && a.kind === b.kind) out.kind = a.kind;
  else if (a.kind && !b.kind && !b.hasConst) out.kind = a.kind;
  else if (b.kind && !a.kind && !a.hasConst) out.kind = b.kind;
  if (a.path && a.path === b.path) out.path = a.path;
  out.fn = a.fn ?? b.fn;
  if (a.hasConst && b.hasConst && a.c === b.c) {
    out.c = a.c;
    out.hasConst = true;
  }
  if (a.frag || b.frag) out.frag = `${a.frag ?? ""} ${b.frag ?? ""}`.slice(0, MAX_FRAG);
  if (a.meta || b.meta) out.meta = { ...a.meta, ...b.meta };
  return out;
}

export function joinAll(vals: Val[]): Val {
  return vals.reduce((acc, v) => join(acc, v), EMPTY);
}

/** Every flow gets a step appended (an assignment, a call, a parameter …). */
export function addStep(v: Val, step: Step): Val {
  if (v.flows.length === 0 && !v.fields && !v.elems) return v;
  const flows = v.flows.map((f) => extend(f, step));
  return { ...v, flows };
}

export function extend(f: Flow, step: Step): Flow {
  const last = f.steps[f.steps.length - 1];
  if (last && last.line === step.line && last.what === step.what && last.file === step.file) return f;
  let steps = [...f.steps, step];
  if (steps.length > MAX_STEPS) steps = [...steps.slice(0, 3), ...steps.slice(steps.length - (MAX_STEPS - 3))];
  return { ...f, steps };
}

/** The value with its flows unable to cause `weaknesses` any more ("all" = every weakness). */
export function clean(v: Val, weaknesses: readonly Weakness[] | "all"): Val {
  if (weaknesses === "all") return v.hasConst ? v : { ...EMPTY, frag: v.frag };
  const apply = (x: Val, depth: number): Val => {
    const flows = x.flows.map((f) => ({ ...f, cleaned: new Set([...f.cleaned, ...weaknesses]) }));
    const out: Val = { ...x, flows };
    if (depth < 3 && x.fields) out.fields = new Map([...x.fields].map(([k, fv]) => [k, apply(fv, depth + 1)]));
    if (depth < 3 && x.elems) out.elems = apply(x.elems, depth + 1);
    return out;
  };
  return apply(v, 0);
}

/** A string made from `v`: no longer an object (operators cannot be injected), one value. */
export function stringify(v: Val): Val {
  const flows = deepFlows(v).map((f) => (f.structured ? { ...f, structured: false } : f));
  return { flows, frag: v.frag, ...(v.hasConst ? { c: String(v.c), hasConst: true } : {}) };
}

/** Reading a field of a value: a known field, a field of a tainted whole, or nothing. */
export function field(v: Val, name: string): Val {
  const known = v.fields?.get(name);
  if (known) return known;
  if (v.flows.length) return { flows: v.flows };
  if (v.elems && /^\d+$/.test(name)) return v.elems;
  return EMPTY;
}

/** An element of a collection (index unknown). */
export function element(v: Val): Val {
  const parts: Val[] = [];
  if (v.elems) parts.push(v.elems);
  if (v.flows.length) parts.push({ flows: v.flows });
  if (!v.elems && v.fields) for (const f of v.fields.values()) parts.push(f);
  return joinAll(parts);
}

export function setField(target: Val, name: string, value: Val): void {
  if (Object.isFrozen(target)) return;
  target.fields ??= new Map();
  target.fields.set(name, value);
}

export function addElement(target: Val, value: Val): void {
  if (Object.isFrozen(target)) return;
  target.elems = join(target.elems, value);
}

/**
 * `xs.push(v)` / `xs.append(v)`: while the array's length is known (a literal, then pushes) the value
 * is element `len` too, so `xs[0]` keeps the constant pushed first; anything else that moves
 * elements (`unshift`, `insert`, `extend`) forgets the positions.
 */
export function pushElement(target: Val, value: Val, atEnd = true): void {
  if (Object.isFrozen(target)) return;
  const len = target.meta?.len;
  if (atEnd && len !== undefined && /^\d+$/.test(len)) {
    setField(target, len, value);
    target.meta = { ...target.meta, len: String(Number(len) + 1) };
  } else if (len !== undefined) {
    for (const k of [...(target.fields?.keys() ?? [])]) if (/^\d+$/.test(k)) target.fields!.delete(k);
    const { len: _len, ...rest } = target.meta!;
    void _len;
    target.meta = rest;
  }
  addElement(target, value);
}

/** Concatenation: the flows of every part, the literal text kept, a string (not an object). */
export function concat(parts: Val[]): Val {
  const flows = mergeFlows(...parts.map((p) => stringify(p).flows));
  const frag = parts
    .map((p) => p.frag ?? "")
    .join(" ")
    .slice(0, MAX_FRAG);
  if (parts.every((p) => p.hasConst))
    return { flows: [], c: parts.map((p) => String(p.c)).join(""), hasConst: true, frag };
  const fixed = fixedPrefix(parts[0]);
  const out: Val = { flows: fixed.length ? clean({ flows }, fixed).flows : flows, frag };
  // An operator-set base URL (the environment) then a path: the host is the operator's.
  const [base, next] = parts;
  if (
    fixed.length ||
    (base &&
      !base.hasConst &&
      base.flows.length > 0 &&
      base.flows.every((f) => f.origin === "env") &&
      next?.hasConst &&
      typeof next.c === "string" &&
      next.c.startsWith("/"))
  )
    out.meta = { fixedHost: "1" };
  return out;
}

/**
 * What a constant start of a string rules out: "https://api.example.com/…" fixes the host (no SSRF,
 * no open redirect), "/local/…" keeps a redirect on this site.
 */
function fixedPrefix(first: Val | undefined): Weakness[] {
  if (first?.meta?.fixedHost) return ["ssrf", "redirect"];
  if (!first?.hasConst || typeof first.c !== "string") return [];
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\]+[/?#]/i.test(first.c)) return ["ssrf", "redirect"];
  if (/^\/(?![/\\])/.test(first.c)) return ["ssrf", "redirect"];
  return [];
}

/** A short, single-line rendering of code for a trace step. */
export function snippet(node: Node, max = 60): string {
  const one = node.text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export const line = (node: Node) => node.startPosition.row + 1;

/** A number made from a value: no longer injectable, though a number made from a weak random is still predictable. */
export function numeric(v: Val): Val {
  const flows = deepFlows(v).filter((f) => f.origin === "random");
  return flows.length ? { flows } : EMPTY;
}
