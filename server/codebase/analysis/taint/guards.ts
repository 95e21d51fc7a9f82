/**
 * What a condition proves about a variable on each side of a branch: allowlist membership, equality
 * with a constant, an anchored regex, a numeric or type check, a prefix check (a path kept under its
 * base, a redirect kept on this site), a host check, a "no .." check, or a validator whose name says
 * so. `if (!ALLOWED.includes(x)) return …` then makes `x` clean for everything after the if.
 * One function per grammar family; both produce the same facts.
 */
import type { GrammarId, Node } from "../../treesitter.ts";
import type { Refinement } from "./analyzer.ts";
import type { Weakness } from "./values.ts";

export interface Fact {
  key: string;
  clean: Refinement;
}
export interface Facts {
  whenTrue: Fact[];
  whenFalse: Fact[];
}

const NONE: Facts = { whenTrue: [], whenFalse: [] };
const HOST: Weakness[] = ["ssrf", "redirect"];
const PATH: Weakness[] = ["path"];
const VALIDATOR = /^(?:is_?)?(?:valid|safe|allowed|whitelisted|allowlisted|permitted|trusted)(?:_|[A-Z]|$)/i;

/** Literal allow-lists of characters that carry no meaning in any sink. */
const ALLOWED_CHARS = /^[A-Za-z0-9_-]+$/;
const CHAR_CLASS = /^\[(?:[A-Za-z0-9_]|\\d|\\w|[A-Za-z0-9]-[A-Za-z0-9]|\\-)+\]$/;
const KEYABLE = new Set(["identifier", "member_expression", "subscript_expression", "attribute", "subscript"]);

export function guardFacts(cond: Node, grammar: GrammarId): Facts {
  return grammar === "python" ? pyFacts(cond, 0) : jsFacts(cond, 0);
}

const swap = (f: Facts): Facts => ({ whenTrue: f.whenFalse, whenFalse: f.whenTrue });
/** Facts that hold whichever side decided: the same key made clean by both. */
function common(a: Fact[], b: Fact[]): Fact[] {
  const out: Fact[] = [];
  for (const f of a) {
    const g = b.find((x) => x.key === f.key);
    if (!g) continue;
    const clean: Refinement =
      f.clean === "all"
        ? g.clean
        : g.clean === "all"
          ? f.clean
          : f.clean.filter((w) => (g.clean as Weakness[]).includes(w));
    out.push({ key: f.key, clean });
  }
  return out;
}

const both = (a: Facts, b: Facts, op: "and" | "or"): Facts =>
  op === "and"
    ? { whenTrue: [...a.whenTrue, ...b.whenTrue], whenFalse: common(a.whenFalse, b.whenFalse) }
    : { whenTrue: common(a.whenTrue, b.whenTrue), whenFalse: [...a.whenFalse, ...b.whenFalse] };

function key(n: Node | null | undefined): string | null {
  if (!n) return null;
  const x = strip(n);
  return KEYABLE.has(x.type) ? x.text : null;
}

function strip(n: Node): Node {
  let x = n;
  while (
    /^(?:parenthesized_expression|as_expression|non_null_expression|await_expression|await)$/.test(x.type) &&
    x.namedChildren[0]
  )
    x = x.namedChildren[0];
  return x;
}

/** Identifiers mentioned by an expression (e.g. `new URL(u).hostname` → u), for host checks. */
function mentioned(n: Node): string[] {
  const out: string[] = [];
  const stack = [n];
  while (stack.length) {
    const x = stack.pop()!;
    if (x.type === "identifier") out.push(x.text);
    if (x.type === "member_expression" || x.type === "attribute") {
      const obj = x.childForFieldName("object");
      if (obj) stack.push(obj);
      continue;
    }
    if (x.type === "call" || x.type === "call_expression" || x.type === "new_expression") {
      // The arguments are the data; the callee is a function name.
      const args = x.childForFieldName("arguments");
      if (args) stack.push(args);
      continue;
    }
    for (const c of x.namedChildren) if (c) stack.push(c);
  }
  return out;
}

function isStringLiteral(n: Node | null | undefined): boolean {
  return (
    !!n &&
    (n.type === "string" || n.type === "template_string") &&
    !n.namedChildren.some((c) => c?.type === "template_substitution" || c?.type === "interpolation")
  );
}

const literalText = (n: Node) => n.text.replace(/^[rbuf]*["'`]+|["'`]+$/gi, "");

/** A checked value: itself clean (plain), or its host fixed (an expression around it). */
function checked(n: Node | null | undefined, all: Refinement = "all"): Fact[] {
  if (!n) return [];
  const k = key(n);
  if (k) {
    const facts: Fact[] = [{ key: k, clean: all }];
    // url.hostname checked: the URL itself now points at an allowed host.
    const s = strip(n);
    const prop = (s.childForFieldName("property") ?? s.childForFieldName("attribute"))?.text;
    const obj = s.childForFieldName("object");
    if (prop && obj && /^(?:hostname|host|origin|netloc)$/.test(prop)) {
      facts.push({ key: obj.text, clean: HOST });
      for (const m of mentioned(obj)) facts.push({ key: m, clean: HOST });
    }
    return facts;
  }
  return mentioned(n).map((m) => ({ key: m, clean: HOST }));
}

/** An anchored regex whose body cannot match "/", "." sequences or markup: the value is a plain token. */
export function safeRegex(pattern: string): boolean {
  const p = pattern.replace(/^\(\?[a-z]+\)/, "");
  if (!/^\^/.test(p) && !/^\\A/.test(p)) return false;
  if (!/\$$/.test(p) && !/\\[zZ]$/.test(p)) return false;
  const body = p.replace(/\\[.\-_]/g, "");
  return !/(?<!\\)\.|\\S|\\W|\\D|\[\^/.test(body) && !/[<>'"/;&|`]/.test(body);
}

// ---- JavaScript ----------------------------------------------------------------------------------

function jsFacts(n: Node, depth: number): Facts {
  if (depth > 6) return NONE;
  const c = strip(n);
  if (c.type === "unary_expression" && c.child(0)?.text === "!") {
    const arg = c.childForFieldName("argument");
    return arg ? swap(jsFacts(arg, depth + 1)) : NONE;
  }
  if (c.type === "binary_expression") {
    const op = c.childForFieldName("operator")?.text ?? "";
    const l = c.childForFieldName("left")!;
    const r = c.childForFieldName("right")!;
    if (op === "&&") return both(jsFacts(l, depth + 1), jsFacts(r, depth + 1), "and");
    if (op === "||") return both(jsFacts(l, depth + 1), jsFacts(r, depth + 1), "or");
    if (op === "===" || op === "==" || op === "!==" || op === "!=") {
      const neg = op.startsWith("!");
      const f = jsEquality(l, r) ?? jsEquality(r, l);
      return f ? (neg ? swap(f) : f) : NONE;
    }
    if (op === "in") return { whenTrue: checked(l), whenFalse: [] };
    if (/^[<>]=?$/.test(op)) {
      // arr.indexOf(x) > -1 / >= 0
      const call = strip(l).type === "call_expression" ? strip(l) : null;
      if (call && /\.indexOf$/.test(call.childForFieldName("function")?.text ?? "")) {
        const inner = jsCall(call);
        if (inner) return op === ">" || op === ">=" ? inner : swap(inner);
      }
    }
    return NONE;
  }
  if (c.type === "call_expression") return jsCall(c) ?? NONE;
  return NONE;
}

function jsEquality(a: Node, b: Node): Facts | null {
  const sa = strip(a);
  // typeof x === "string"
  if (sa.type === "unary_expression" && sa.child(0)?.text === "typeof" && isStringLiteral(b)) {
    const arg = sa.childForFieldName("argument");
    const k = key(arg);
    if (!k) return null;
    const t = literalText(b);
    if (t === "string") return { whenTrue: [{ key: k, clean: ["nosql"] }], whenFalse: [] };
    if (t === "number" || t === "boolean") return { whenTrue: [{ key: k, clean: "all" }], whenFalse: [] };
    return null;
  }
  // x.indexOf(y) === -1
  if (
    sa.type === "call_expression" &&
    /\.indexOf$/.test(sa.childForFieldName("function")?.text ?? "") &&
    b.text === "-1"
  ) {
    const inner = jsCall(sa);
    return inner ? swap(inner) : null;
  }
  const constant = isStringLiteral(b) || b.type === "number" || /^[A-Z][A-Z0-9_]*$/.test(b.text);
  return constant ? { whenTrue: checked(a), whenFalse: [] } : null;
}

function jsCall(c: Node): Facts | null {
  const fn = c.childForFieldName("function");
  const args = (c.childForFieldName("arguments")?.namedChildren ?? []).filter((x): x is Node => !!x);
  if (!fn) return null;
  const f = strip(fn);
  const first = args[0];
  if (f.type === "member_expression") {
    const obj = f.childForFieldName("object")!;
    const method = f.childForFieldName("property")?.text ?? "";
    if (method === "includes" || method === "has" || method === "indexOf" || method === "hasOwnProperty") {
      // "abc".includes(x) is a substring test: x is made of the literal's characters only, clean
      // when those are plain word characters (the allow-list of a hand-written rebuilder).
      if (isStringLiteral(obj))
        return ALLOWED_CHARS.test(literalText(obj)) ? { whenTrue: checked(first), whenFalse: [] } : null;
      // x.includes("..") — a traversal check on x
      if (isStringLiteral(first) && first && /\.\./.test(literalText(first)) && method !== "has")
        return { whenTrue: [], whenFalse: key(obj) ? [{ key: key(obj)!, clean: PATH }] : [] };
      if (isStringLiteral(first)) return null;
      return { whenTrue: checked(first), whenFalse: [] };
    }
    if (method === "test" && (strip(obj).type === "regex" || /^[A-Z_][A-Z0-9_]*$/.test(obj.text))) {
      const pattern = strip(obj).childForFieldName("pattern")?.text;
      // /[0-9]/.test(s[i]): one character of a string checked against a class of plain characters.
      if (pattern !== undefined && first && strip(first).type === "subscript_expression" && CHAR_CLASS.test(pattern))
        return { whenTrue: checked(first), whenFalse: [] };
      if (pattern !== undefined && !safeRegex(pattern)) return null;
      return { whenTrue: checked(first), whenFalse: [] };
    }
    if (method === "startsWith" && first) {
      const k = key(obj);
      if (
        isStringLiteral(first) &&
        /^\/(?![/\\])?/.test(literalText(first)) &&
        literalText(first).length <= 2 &&
        literalText(first) !== "//"
      )
        return { whenTrue: k ? [{ key: k, clean: HOST }] : [], whenFalse: [] };
      if (isStringLiteral(first) && /^https?:\/\/[^/]+\//.test(literalText(first)))
        return { whenTrue: k ? [{ key: k, clean: HOST }] : [], whenFalse: [] };
      const facts: Fact[] = k ? [{ key: k, clean: PATH }] : [];
      const so = strip(obj);
      if (so.type === "call_expression")
        for (const a of so.childForFieldName("arguments")?.namedChildren ?? []) {
          const ak = key(a);
          if (ak) facts.push({ key: ak, clean: PATH });
        }
      return { whenTrue: facts, whenFalse: [] };
    }
    if (/^(?:isInteger|isSafeInteger|isFinite)$/.test(method) && obj.text === "Number")
      return { whenTrue: checked(first), whenFalse: [] };
    if (VALIDATOR.test(method)) return { whenTrue: checked(first), whenFalse: [] };
    if (obj.text === "Object" && method === "hasOwn" && args[1]) return { whenTrue: checked(args[1]), whenFalse: [] };
    return null;
  }
  if (f.type === "identifier") {
    if (f.text === "isNaN") return { whenTrue: [], whenFalse: checked(first) };
    if (VALIDATOR.test(f.text)) return { whenTrue: checked(first), whenFalse: [] };
  }
  return null;
}

/**
 * What a per-character predicate proves about its character when it holds — the callback of
 * `s.split("").filter(c => /[a-z]/.test(c))`, `filter(lambda c: c in ALLOWED, s)` —: the
 * refinement of `name`, or null when it proves nothing (a block-list such as `c !== "'"`).
 */
export function charPredicate(pred: Node, name: string, grammar: GrammarId): Refinement | null {
  const p = strip(pred);
  if (grammar !== "python" && p.type === "call_expression") {
    // /[a-z0-9]/.test(c): one character against a class of plain characters.
    const fn = strip(p.childForFieldName("function") ?? p);
    const obj = fn.type === "member_expression" ? strip(fn.childForFieldName("object")!) : null;
    const arg = p.childForFieldName("arguments")?.namedChildren[0];
    if (
      obj?.type === "regex" &&
      fn.childForFieldName("property")?.text === "test" &&
      arg &&
      strip(arg).text === name &&
      CHAR_CLASS.test(obj.childForFieldName("pattern")?.text ?? "")
    )
      return "all";
  }
  return guardFacts(p, grammar).whenTrue.find((f) => f.key === name)?.clean ?? null;
}

// ---- Python --------------------------------------------------------------------------------------

function pyFacts(n: Node, depth: number): Facts {
  if (depth > 6) return NONE;
  const c = strip(n);
  if (c.type === "not_operator") {
    const arg = c.childForFieldName("argument");
    return arg ? swap(pyFacts(arg, depth + 1)) : NONE;
  }
  if (c.type === "boolean_operator") {
    const op = c.childForFieldName("operator")?.text ?? c.child(1)?.text;
    const l = c.childForFieldName("left")!;
    const r = c.childForFieldName("right")!;
    return both(pyFacts(l, depth + 1), pyFacts(r, depth + 1), op === "and" ? "and" : "or");
  }
  if (c.type === "comparison_operator") {
    const operands = c.namedChildren.filter((x): x is Node => !!x);
    const ops = c.children.filter((x) => x && !x.isNamed).map((x) => x!.text);
    const op = ops.join(" ");
    const [l, r] = operands;
    if (!l || !r) return NONE;
    if (op === "in" || op === "not in") {
      // ".." in x — a traversal check
      if (pyIsString(l) && /\.\./.test(literalText(l))) {
        const k = key(r);
        const f: Facts = { whenTrue: [], whenFalse: k ? [{ key: k, clean: PATH }] : [] };
        return op === "in" ? f : swap(f);
      }
      // x in "abc" is a substring test: x is made of the literal's characters, an allow-list when
      // those are plain word characters (a character filter's `c in "0123456789"`).
      if (pyIsString(r)) {
        if (!ALLOWED_CHARS.test(literalText(r))) return NONE;
        const f: Facts = { whenTrue: checked(l), whenFalse: [] };
        return op === "in" ? f : swap(f);
      }
      const f: Facts = { whenTrue: checked(l), whenFalse: [] };
      return op === "in" ? f : swap(f);
    }
    if (op === "==" || op === "!=" || op === "is" || op === "is not") {
      const constant = (x: Node) => pyIsString(x) || x.type === "integer" || /^[A-Z][A-Z0-9_]*$/.test(x.text);
      // os.path.commonpath([base, p]) == base
      const sl = strip(l);
      if (sl.type === "call" && /commonpath|commonprefix/.test(sl.childForFieldName("function")?.text ?? "")) {
        const facts = mentioned(sl).map((m) => ({ key: m, clean: PATH as Refinement }));
        const f: Facts = { whenTrue: facts, whenFalse: [] };
        return op === "==" || op === "is" ? f : swap(f);
      }
      const target = constant(r) ? l : constant(l) ? r : null;
      if (!target) return NONE;
      const f: Facts = { whenTrue: checked(target), whenFalse: [] };
      return op === "==" || op === "is" ? f : swap(f);
    }
    return NONE;
  }
  if (c.type === "call") {
    const fn = c.childForFieldName("function");
    const args = (c.childForFieldName("arguments")?.namedChildren ?? []).filter(
      (x): x is Node => !!x && x.type !== "keyword_argument",
    );
    if (!fn) return NONE;
    const name = fn.text.replace(/\s+/g, "");
    const first = args[0];
    if (fn.type === "attribute") {
      const obj = fn.childForFieldName("object")!;
      const method = fn.childForFieldName("attribute")?.text ?? "";
      if (/^(?:isdigit|isnumeric|isdecimal|isalnum|isalpha|isidentifier)$/.test(method))
        return { whenTrue: checked(obj), whenFalse: [] };
      if (method === "startswith" && first) {
        const k = key(obj);
        const lit = pyIsString(first) ? literalText(first) : null;
        if (lit !== null && /^\/(?![/\\])?$/.test(lit))
          return { whenTrue: k ? [{ key: k, clean: HOST }] : [], whenFalse: [] };
        if (lit !== null && /^https?:\/\/[^/]+\//.test(lit))
          return { whenTrue: k ? [{ key: k, clean: HOST }] : [], whenFalse: [] };
        const facts: Fact[] = k ? [{ key: k, clean: PATH }] : [];
        const so = strip(obj);
        if (so.type === "call") for (const m of mentioned(so)) facts.push({ key: m, clean: PATH });
        return { whenTrue: facts, whenFalse: [] };
      }
      if (/^(?:fullmatch|match)$/.test(method) && obj.text === "re" && first && args[1]) {
        if (
          !pyIsString(first) ||
          !safeRegex(literalText(first)) ||
          (method === "match" && !/\$$|\\Z$/.test(literalText(first)))
        )
          return NONE;
        return { whenTrue: checked(args[1]), whenFalse: [] };
      }
      if ((method === "fullmatch" || method === "match") && /^[A-Z_][A-Z0-9_]*$/.test(obj.text))
        return { whenTrue: checked(first), whenFalse: [] };
      if (VALIDATOR.test(method) || /url_has_allowed_host_and_scheme|is_safe_url/.test(method))
        return { whenTrue: checked(first), whenFalse: [] };
      return NONE;
    }
    if (name === "isinstance" && first && args[1]) {
      const t = args[1].text;
      if (/^(?:int|float|bool)$/.test(t)) return { whenTrue: checked(first), whenFalse: [] };
      if (t === "str") return { whenTrue: key(first) ? [{ key: key(first)!, clean: ["nosql"] }] : [], whenFalse: [] };
      return NONE;
    }
    if (/url_has_allowed_host_and_scheme|is_safe_url/.test(name))
      return { whenTrue: checked(first, HOST), whenFalse: [] };
    if (VALIDATOR.test(name)) return { whenTrue: checked(first), whenFalse: [] };
  }
  return NONE;
}

function pyIsString(n: Node): boolean {
  return n.type === "string" && !n.namedChildren.some((c) => c?.type === "interpolation");
}
