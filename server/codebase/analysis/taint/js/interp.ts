/**
 * The JavaScript / TypeScript taint interpreter: an abstract interpretation of the tree-sitter tree,
 * statement by statement (flow-sensitive: a reassignment is a strong update, branches are forked and
 * joined, a branch under a constant-false condition is skipped, a check that exits early refines what
 * follows). Calls to functions of the file are analysed in the caller's context; callbacks are
 * analysed with the values the model says they receive. What the frameworks and libraries do —
 * sources, sinks, sanitizers — lives in model.ts.
 */
import type { Node } from "../../../treesitter.ts";
import type { RuleContext } from "../../rules/context.ts";
import { Analyzer, Env, flagOf } from "../analyzer.ts";
import { guardFacts } from "../guards.ts";
import { callModel } from "./calls.ts";
import { memberModel, assignModel, handlerParams, isRouteRegistration, type JsCall } from "./model.ts";
import {
  sourceVal,
  addElement,
  addStep,
  clean,
  concat,
  constant,
  deepFlows,
  element,
  EMPTY,
  field,
  join,
  joinAll,
  line,
  numeric,
  setField,
  snippet,
  stringify,
  type Val,
} from "../values.ts";

const FUNCTION_TYPES = new Set([
  "function_declaration",
  "function_expression",
  "arrow_function",
  "method_definition",
  "generator_function_declaration",
  "generator_function",
  "function",
]);

const TS_WRAPPERS = new Set([
  "as_expression",
  "non_null_expression",
  "satisfies_expression",
  "type_assertion",
  "parenthesized_expression",
]);

/** Text that a function reading a source contains (a cheap filter before analysing it as an entry). */
const JS_SOURCE_TEXT =
  /\b(?:req|request|ctx|context|event)\s*\??\.\s*(?:query|body|params|param|cookies|signedCookies|headers|header|files?|url|originalUrl|path|get|nextUrl|json|text|formData|request|querystring|search|on)\b|process\s*\.\s*(?:argv|env|stdin)|\breadFile|\bcreateReadStream|Math\s*\.\s*random|searchParams|\bcookies\s*\(|\bheaders\s*\(|\.consume\s*\(|\bWorker\s*\(|\.process\s*\(|\beachMessage\b|\beachBatch\b|ReceiveMessageCommand|\breceiveMessage\s*\(|\bhandleMessage\b/;
/** Text of a function that may pass a parameter to a sink (worth a summary for other files). */
const JS_SINK_TEXT =
  /\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|eval|Function|runIn\w*Context|query|execute|raw|\$queryRawUnsafe|\$executeRawUnsafe|readFile\w*|writeFile\w*|createReadStream|createWriteStream|sendFile|unlink\w*|redirect|fetch|axios|got|unserialize|parseXml|findOne|find|aggregate)\s*\(|\bxpath\b/;

const SECRET_NAME =
  /pass(?:word|wd|phrase)?|pwd|secret|token|nonce|otp|csrf|session_?id|\bsid\b|api_?key|reset|salt|invite|share/i;

/** Did the block certainly leave (return / throw)? */
type Outcome = "normal" | "exit";

interface Frame {
  /** Return values seen so far in the function being analysed. */
  returns: Val[];
  fnName: string;
}

export class JsAnalyzer extends Analyzer {
  readonly module = new Env();
  private frames: Frame[] = [];
  /** Imported names bound to local files: name → { specifier, imported name }. */
  readonly localImports = new Map<string, { specifier: string; name: string }>();
  /** Calls to imported local functions, with the values passed (resolved across files later). */
  readonly importedCalls: { specifier: string; name: string; args: Val[]; node: Node }[] = [];

  constructor(ctx: RuleContext, budgetMs: number) {
    super(ctx, { budgetMs });
  }

  run(root: Node): void {
    this.hoist(root, this.module);
    this.block(root.namedChildren, this.module);
    // Functions no call reached (exported helpers, handlers registered elsewhere): entries of their
    // own — when they can matter: they read a source, look like a handler, or are exported and sink.
    // Nested functions matter only where the file reads a source; otherwise only the top-level
    // (exportable) functions can matter, for other files' callers.
    const candidates = JS_SOURCE_TEXT.test(this.ctx.source) ? this.allFunctions(root) : topLevelFunctions(root);
    for (const fn of candidates) {
      if (this.analysed.has(fn.id)) continue;
      const text = fn.text;
      if (!JS_SOURCE_TEXT.test(text) && !(JS_SINK_TEXT.test(text) && isExported(fn))) continue;
      this.analyseEntry(fn);
    }
  }

  /** Every function node, in one call into the parser (walking the tree from JS costs far more). */
  private allFunctions(root: Node): Node[] {
    return root.descendantsOfType([...FUNCTION_TYPES]).filter((n): n is Node => !!n);
  }

  /** A function analysed on its own: request objects where its parameters look like a handler's. */
  private analyseEntry(fn: Node): void {
    const params = paramNodes(fn);
    const names = params.map(paramName);
    const special = handlerParams(names, fnName(fn), /\bkoa\b/.test(this.ctx.source));
    // A Next.js page or layout: ({ params, searchParams }) come from the URL.
    const first = params[0] && (params[0].childForFieldName("pattern") ?? params[0]);
    if (first?.type === "object_pattern" && /\b(?:searchParams|params)\b/.test(first.text) && isExported(fn))
      special[0] = {
        flows: [],
        fields: new Map(
          ["searchParams", "params"].map((k) => [
            k,
            { ...sourceVal("request", k, { line: line(first), what: k }), meta: { whole: "1" } },
          ]),
        ),
      };
    // Symbolic parameters (for other files' callers) only where another file can call: exported functions.
    const summarised = !special.some(Boolean) && fn.type !== "method_definition" && isExported(fn);
    const args = params.map(
      (p, i) => special[i] ?? (summarised ? this.symbolicParam(i, names[i] ?? `arg${i}`, p) : EMPTY),
    );
    const self = this.selfFor(fn);
    const ret = this.invoke({ node: fn, closure: this.module, name: fnName(fn), ...(self ? { self } : {}) }, args);
    if (summarised) this.summarise(fnName(fn), fn, ret);
  }

  private selfFor(fn: Node): Val | undefined {
    const cls = fn.parent?.type === "class_body" ? fn.parent.parent : null;
    const name = cls?.childForFieldName("name")?.text;
    return name ? this.instanceOf(name) : undefined;
  }

  // ---- functions ---------------------------------------------------------------------------------

  invoke(fn: NonNullable<Val["fn"]>, args: Val[], self?: Val): Val {
    const node = fn.node;
    // Nothing to follow in: no untrusted or model-known argument, a clean closure, no source inside.
    if (
      !args.some(interesting) &&
      !interesting(self ?? fn.self ?? EMPTY) &&
      !envTainted(fn.closure as Env) &&
      !JS_SOURCE_TEXT.test(node.text)
    )
      return EMPTY;
    return this.callFunction(node, [...args, self ?? fn.self ?? EMPTY], () => {
      const env = new Env(fn.closure as Env);
      const thisVal = self ?? fn.self;
      if (thisVal) env.declare("this", thisVal);
      const params = paramNodes(node);
      params.forEach((p, i) => {
        const arg = args[i] ?? EMPTY;
        const name = paramName(p);
        if (p.type === "rest_pattern" || p.firstNamedChild?.type === "rest_pattern") {
          this.bind(p, { flows: [], elems: joinAll(args.slice(i)) }, env, true);
          return;
        }
        this.bind(p, addStep(arg, { line: line(p), what: `parameter ${name}` }), env, true);
      });
      const frame: Frame = { returns: [], fnName: fn.name };
      this.frames.push(frame);
      try {
        const body = node.childForFieldName("body");
        if (!body) return EMPTY;
        this.assertFollowable(fn.name, node, body);
        if (body.type === "statement_block") {
          this.hoist(body, env);
          this.block(body.namedChildren, env);
          return joinAll(frame.returns);
        }
        return this.expr(body, env);
      } finally {
        this.frames.pop();
      }
    });
  }

  /** Function declarations are usable before their statement (hoisting). */
  private hoist(block: Node, env: Env): void {
    for (const child of block.namedChildren) {
      const decl = child?.type === "export_statement" ? child.childForFieldName("declaration") : child;
      if (!decl) continue;
      if (decl.type === "function_declaration" || decl.type === "generator_function_declaration") {
        const name = decl.childForFieldName("name")?.text;
        if (name) env.declare(name, { flows: [], fn: { node: decl, closure: env, name } });
      }
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  block(statements: (Node | null)[], env: Env): Outcome {
    for (const s of statements) {
      if (!s) continue;
      if (this.statement(s, env) === "exit") return "exit";
    }
    return "normal";
  }

  private statement(s: Node, env: Env): Outcome {
    this.tick();
    switch (s.type) {
      case "expression_statement":
        for (const c of s.namedChildren) if (c) this.expr(c, env);
        return isExitCall(s) ? "exit" : "normal";
      case "lexical_declaration":
      case "variable_declaration":
        for (const d of s.namedChildren) {
          if (d?.type !== "variable_declarator") continue;
          const name = d.childForFieldName("name");
          const value = d.childForFieldName("value");
          if (!name) continue;
          const v = value ? this.expr(value, env) : constant(null);
          if (name.type === "identifier" && SECRET_NAME.test(name.text))
            this.sink("weak-random", v, d, `${name.text} =`);
          this.bind(name, value ? addStep(v, { line: line(d), what: `${snippet(name, 30)} = …` }) : v, env, true);
        }
        return "normal";
      case "return_statement": {
        const value = s.namedChildren[0];
        const v = value ? this.expr(value, env) : EMPTY;
        this.frames[this.frames.length - 1]?.returns.push(addStep(v, { line: line(s), what: "return" }));
        return "exit";
      }
      case "throw_statement":
        for (const c of s.namedChildren) if (c) this.expr(c, env);
        return "exit";
      case "if_statement":
        return this.ifStatement(s, env);
      case "statement_block":
        return this.block(s.namedChildren, env);
      case "for_statement": {
        const init = s.childForFieldName("initializer");
        if (init) this.statement(init, env);
        return this.loop(s, env, () => {
          const cond = s.childForFieldName("condition");
          if (cond) this.expr(cond, env);
        });
      }
      case "for_in_statement": {
        const right = s.childForFieldName("right");
        const left = s.childForFieldName("left");
        const iter = right ? this.expr(right, env) : EMPTY;
        const of = s.children.some((c) => c?.type === "of");
        if (left) this.bind(left, of ? element(iter) : { flows: iter.flows }, env, true);
        return this.loop(s, env);
      }
      case "while_statement":
      case "do_statement": {
        const cond = s.childForFieldName("condition");
        if (cond && s.type === "while_statement" && this.constBool(cond, env) === false) return "normal";
        if (cond) this.expr(cond, env);
        return this.loop(s, env);
      }
      case "switch_statement": {
        const value = s.childForFieldName("value");
        if (value) this.expr(value, env);
        const body = s.childForFieldName("body");
        const branches: Env[] = [];
        let hasDefault = false;
        for (const c of body?.namedChildren ?? []) {
          if (!c) continue;
          if (c.type === "switch_default") hasDefault = true;
          const fork = env.fork();
          const out = this.block(
            c.namedChildren.filter((x) => x !== c.childForFieldName("value")),
            fork,
          );
          if (out === "normal") branches.push(fork);
        }
        if (!hasDefault) branches.push(env.fork());
        env.absorb(branches.length ? branches : [env.fork()]);
        return "normal";
      }
      case "try_statement": {
        const body = s.childForFieldName("body");
        const before = env.fork();
        const out = body ? this.block(body.namedChildren, env) : "normal";
        const handler = s.childForFieldName("handler");
        let handled: Outcome = "exit";
        if (handler) {
          const fork = env.fork();
          fork.absorb([fork, before]);
          const param = handler.childForFieldName("parameter");
          if (param) this.bind(param, EMPTY, fork, true);
          const hb = handler.childForFieldName("body");
          handled = hb ? this.block(hb.namedChildren, fork) : "normal";
          if (handled === "normal") env.absorb(out === "normal" ? [env.fork(), fork] : [fork]);
        }
        const fin = s.childForFieldName("finalizer");
        const fb = fin?.childForFieldName("body");
        if (fb && this.block(fb.namedChildren, env) === "exit") return "exit";
        return out === "exit" && handled === "exit" ? "exit" : "normal";
      }
      case "function_declaration":
      case "generator_function_declaration": {
        const name = s.childForFieldName("name")?.text;
        if (name && !env.vars.get(name)?.fn) env.declare(name, { flows: [], fn: { node: s, closure: env, name } });
        return "normal";
      }
      case "class_declaration":
      case "abstract_class_declaration":
        this.classDeclaration(s, env);
        return "normal";
      case "export_statement": {
        const decl = s.childForFieldName("declaration");
        if (decl) return this.statement(decl, env);
        for (const c of s.namedChildren) if (c && c.type !== "export_clause" && c.type !== "string") this.expr(c, env);
        return "normal";
      }
      case "import_statement":
        this.importStatement(s, env);
        return "normal";
      case "labeled_statement": {
        const body = s.childForFieldName("body");
        return body ? this.statement(body, env) : "normal";
      }
      case "break_statement":
      case "continue_statement":
        return "exit";
      default:
        return "normal";
    }
  }

  private loop(s: Node, env: Env, eachRound?: () => void): Outcome {
    const body = s.childForFieldName("body");
    if (!body) return "normal";
    // A second round only when the first carried untrusted data into a variable (what one round
    // assigns reaches the next); otherwise nested loops would cost 2^depth for nothing.
    for (let i = 0; i < 2; i++) {
      const fork = env.fork();
      this.statement(body, fork);
      eachRound?.();
      const changed = [...fork.vars].some(([k, v]) => v !== env.vars.get(k) && deepFlows(v, 1).length > 0);
      env.absorb([env.fork(), fork]);
      if (!changed) break;
    }
    return "normal";
  }

  private ifStatement(s: Node, env: Env): Outcome {
    const cond = s.childForFieldName("condition");
    const then = s.childForFieldName("consequence");
    const alt = s.childForFieldName("alternative");
    const altBody = alt?.type === "else_clause" ? (alt.namedChildren[0] ?? null) : alt;
    const known = cond ? this.constBool(cond, env) : undefined;
    if (cond && known === undefined) this.expr(cond, env);
    if (known === true) return then ? this.statement(then, env) : "normal";
    if (known === false) return altBody ? this.statement(altBody, env) : "normal";
    const facts = cond ? guardFacts(unwrap(cond), this.ctx.grammar!) : { whenTrue: [], whenFalse: [] };
    const thenEnv = env.fork();
    for (const f of facts.whenTrue) thenEnv.refine(f.key, f.clean);
    const elseEnv = env.fork();
    for (const f of facts.whenFalse) elseEnv.refine(f.key, f.clean);
    const flag = flagOf(cond);
    if (flag) {
      thenEnv.applyFlag(flag.flag, flag.holds);
      elseEnv.applyFlag(flag.flag, !flag.holds);
    }
    const thenOut = then ? this.statement(then, thenEnv) : "normal";
    const elseOut = altBody ? this.statement(altBody, elseEnv) : "normal";
    const live: Env[] = [];
    if (thenOut === "normal") live.push(thenEnv);
    if (elseOut === "normal") live.push(elseEnv);
    if (live.length === 0) return "exit";
    env.absorb(live);
    if (flag && live.length === 2) env.rememberFlag(flag.flag, flag.holds, thenEnv, elseEnv);
    return "normal";
  }

  private classDeclaration(s: Node, env: Env): void {
    const name = s.childForFieldName("name")?.text ?? "";
    const inst = this.instanceOf(name);
    const body = s.childForFieldName("body");
    const methods = new Map<string, Val>();
    let ctor: Node | null = null;
    for (const m of body?.namedChildren ?? []) {
      if (!m) continue;
      if (m.type === "method_definition") {
        const mname = m.childForFieldName("name")?.text ?? "";
        if (mname === "constructor") ctor = m;
        methods.set(mname, { flows: [], fn: { node: m, closure: env, name: `${name}.${mname}`, self: inst } });
      } else if (m.type === "public_field_definition" || m.type === "field_definition") {
        const fname = (m.childForFieldName("name") ?? m.childForFieldName("property"))?.text;
        const value = m.childForFieldName("value");
        if (fname && value) {
          const v = this.expr(value, env);
          if (v.fn) v.fn.self = inst;
          setField(inst, fname, v);
        }
      }
    }
    for (const [k, v] of methods) if (!inst.fields!.has(k)) setField(inst, k, v);
    const cls: Val = { flows: [], kind: "class", fields: new Map(methods), meta: { name } };
    if (ctor) cls.fn = { node: ctor, closure: env, name: `${name}.constructor`, self: inst };
    if (name) env.declare(name, cls);
  }

  private importStatement(s: Node, env: Env): void {
    // Type-only imports bind nothing at run time (and are most of a TypeScript file's imports).
    if (/^import\s+type\b/.test(s.text)) return;
    const source = s.childForFieldName("source");
    const spec = source ? unquote(source.text) : "";
    const clause = s.namedChildren.find((c) => c?.type === "import_clause");
    if (!clause) return;
    const local = spec.startsWith(".") || spec.startsWith("@/") || spec.startsWith("~/");
    const bindName = (localName: string, imported: string) => {
      if (local) {
        this.localImports.set(localName, { specifier: spec, name: imported });
        env.declare(localName, { flows: [], kind: "local-import", path: `${spec}#${imported}` });
      } else env.declare(localName, { flows: [], kind: "module", path: moduleName(spec, imported) });
    };
    for (const c of clause.namedChildren) {
      if (!c) continue;
      if (c.type === "identifier") bindName(c.text, "default");
      else if (c.type === "namespace_import") {
        const id = c.namedChildren[0];
        if (id) bindName(id.text, "*");
      } else if (c.type === "named_imports")
        for (const spec of c.namedChildren) {
          if (spec?.type !== "import_specifier" || /^type\s/.test(spec.text)) continue;
          const name = spec.childForFieldName("name")?.text;
          const alias = spec.childForFieldName("alias")?.text;
          if (name) bindName(alias ?? name, name);
        }
    }
  }

  /** Binds a pattern (identifier, destructuring, default, rest) to a value. */
  bind(pattern: Node, v: Val, env: Env, declare: boolean): void {
    const set = (name: string, value: Val) => (declare ? env.declare(name, value) : env.assign(name, value));
    switch (pattern.type) {
      case "identifier":
      case "shorthand_property_identifier_pattern":
        set(pattern.text, v);
        return;
      case "required_parameter":
      case "optional_parameter": {
        const p = pattern.childForFieldName("pattern") ?? pattern.namedChildren[0];
        const dflt = pattern.childForFieldName("value");
        if (p) this.bind(p, dflt ? join(v, this.expr(dflt, env)) : v, env, declare);
        return;
      }
      case "assignment_pattern":
      case "object_assignment_pattern": {
        const left = pattern.childForFieldName("left");
        const right = pattern.childForFieldName("right");
        if (left) this.bind(left, right ? join(v, this.expr(right, env)) : v, env, declare);
        return;
      }
      case "object_pattern":
        for (const p of pattern.namedChildren) {
          if (!p) continue;
          if (p.type === "shorthand_property_identifier_pattern") set(p.text, this.member(v, p.text, p, env));
          else if (p.type === "pair_pattern") {
            const key = p.childForFieldName("key");
            const value = p.childForFieldName("value");
            if (key && value) this.bind(value, this.member(v, propertyKey(key, this, env), p, env), env, declare);
          } else if (p.type === "object_assignment_pattern") {
            const left = p.childForFieldName("left");
            const right = p.childForFieldName("right");
            if (left) {
              const fv = this.member(v, left.text, p, env);
              this.bind(left, right ? join(fv, this.expr(right, env)) : fv, env, declare);
            }
          } else if (p.type === "rest_pattern") {
            const id = p.namedChildren[0];
            if (id) this.bind(id, v, env, declare);
          }
        }
        return;
      case "array_pattern": {
        let index = 0;
        for (const c of pattern.children) {
          if (!c) continue;
          if (c.type === ",") {
            index++;
            continue;
          }
          if (!c.isNamed) continue;
          if (c.type === "rest_pattern") {
            const id = c.namedChildren[0];
            if (id) this.bind(id, { flows: [], elems: element(v) }, env, declare);
          } else this.bind(c, v.fields?.get(String(index)) ?? element(v), env, declare);
        }
        return;
      }
      case "rest_pattern": {
        const id = pattern.namedChildren[0];
        if (id) this.bind(id, v, env, declare);
        return;
      }
      case "member_expression":
      case "subscript_expression":
        this.assignTo(pattern, v, env);
        return;
      default:
        if (TS_WRAPPERS.has(pattern.type) && pattern.namedChildren[0])
          this.bind(pattern.namedChildren[0], v, env, declare);
    }
  }

  /** `a.b = v`, `a[k] = v`: a field write (the object is shared: aliases see it). */
  private assignTo(target: Node, v: Val, env: Env): void {
    const objNode = target.childForFieldName("object");
    if (!objNode) return;
    const obj = this.expr(objNode, env);
    let key: string | undefined;
    if (target.type === "member_expression") key = target.childForFieldName("property")?.text;
    else {
      const index = target.childForFieldName("index");
      const iv = index ? this.expr(index, env) : EMPTY;
      if (iv.hasConst) key = String(iv.c);
    }
    assignModel(this, obj, key, v, target);
    if (key !== undefined) setField(obj, key, v);
    else addElement(obj, v);
    env.forget(target.text);
  }

  // ---- expressions -------------------------------------------------------------------------------

  expr(n: Node, env: Env): Val {
    this.enter();
    try {
      return this.exprInner(n, env);
    } finally {
      this.leave();
    }
  }

  private exprInner(n: Node, env: Env): Val {
    const refined = refinable(n) ? env.refinement(n.text) : undefined;
    const v = this.exprRaw(n, env);
    return refined ? clean(v, refined) : v;
  }

  private exprRaw(n: Node, env: Env): Val {
    switch (n.type) {
      case "identifier":
        if (n.text === "undefined") return constant(null);
        return env.lookup(n.text) ?? globalValue(n.text);
      case "this":
        return env.lookup("this") ?? EMPTY;
      case "string":
        return constant(unquote(n.text));
      case "number":
        return constant(Number(n.text.replace(/_/g, "")));
      case "true":
        return constant(true);
      case "false":
        return constant(false);
      case "null":
      case "undefined":
        return constant(null);
      case "regex":
        return { flows: [], kind: "regex", meta: { pattern: n.childForFieldName("pattern")?.text ?? "" } };
      case "template_string": {
        const parts: Val[] = [];
        for (const c of n.children) {
          if (!c) continue;
          if (c.type === "string_fragment") parts.push(constant(c.text));
          else if (c.type === "template_substitution") {
            const inner = c.namedChildren[0];
            parts.push(inner ? this.expr(inner, env) : EMPTY);
          }
        }
        if (parts.length === 0) return constant("");
        return concat(parts);
      }
      case "member_expression": {
        const objNode = n.childForFieldName("object")!;
        const obj = this.expr(objNode, env);
        const prop = n.childForFieldName("property")?.text ?? "";
        return this.member(obj, prop, n, env);
      }
      case "subscript_expression": {
        const obj = this.expr(n.childForFieldName("object")!, env);
        const index = n.childForFieldName("index");
        const iv = index ? this.expr(index, env) : EMPTY;
        if (iv.hasConst && iv.c !== null) return this.member(obj, String(iv.c), n, env);
        return join(element(obj), obj.kind ? this.member(obj, "*", n, env) : EMPTY);
      }
      case "call_expression":
        return this.call(n, env, false);
      case "new_expression":
        return this.call(n, env, true);
      case "await_expression":
      case "yield_expression":
      case "spread_element": {
        const inner = n.namedChildren[0];
        return inner ? this.expr(inner, env) : EMPTY;
      }
      case "binary_expression":
        return this.binary(n, env);
      case "unary_expression": {
        const op = n.childForFieldName("operator")?.text ?? n.child(0)?.text;
        const arg = n.childForFieldName("argument");
        const v = arg ? this.expr(arg, env) : EMPTY;
        if (op === "!") return v.hasConst ? constant(!v.c) : EMPTY;
        if (op === "typeof" || op === "void" || op === "delete") return EMPTY;
        if ((op === "-" || op === "+") && v.hasConst) return constant(op === "-" ? -Number(v.c) : Number(v.c));
        return EMPTY; // +x, -x, ~x: numbers
      }
      case "update_expression":
        return EMPTY;
      case "ternary_expression": {
        const cond = n.childForFieldName("condition")!;
        const a = n.childForFieldName("consequence");
        const b = n.childForFieldName("alternative");
        const known = this.constBool(cond, env);
        if (known === true) return a ? this.expr(a, env) : EMPTY;
        if (known === false) return b ? this.expr(b, env) : EMPTY;
        this.expr(cond, env);
        const facts = guardFacts(unwrap(cond), this.ctx.grammar!);
        const ea = env.fork();
        for (const f of facts.whenTrue) ea.refine(f.key, f.clean);
        const eb = env.fork();
        for (const f of facts.whenFalse) eb.refine(f.key, f.clean);
        return join(a ? this.expr(a, ea) : EMPTY, b ? this.expr(b, eb) : EMPTY);
      }
      case "assignment_expression": {
        const left = n.childForFieldName("left")!;
        const right = n.childForFieldName("right")!;
        const v = addStep(this.expr(right, env), { line: line(n), what: `${snippet(left, 30)} = …` });
        this.bind(left, v, env, false);
        return v;
      }
      case "augmented_assignment_expression": {
        const left = n.childForFieldName("left")!;
        const right = n.childForFieldName("right")!;
        const op = n.childForFieldName("operator")?.text ?? "";
        const before = this.expr(left, env);
        const r = this.expr(right, env);
        let v: Val;
        if (op === "+=") v = concat([before, r]);
        else if (op === "||=" || op === "??=" || op === "&&=") v = join(before, r);
        else v = EMPTY;
        v = addStep(v, { line: line(n), what: `${snippet(left, 30)} ${op} …` });
        this.bind(left, v, env, false);
        return v;
      }
      case "sequence_expression": {
        let last: Val = EMPTY;
        for (const c of n.namedChildren) if (c) last = this.expr(c, env);
        return last;
      }
      case "object":
        return this.object(n, env);
      case "array":
        return this.sequence(n.namedChildren, "spread_element", (c) => this.expr(c, env));
      case "arrow_function":
      case "function_expression":
      case "function":
      case "generator_function":
        return { flows: [], fn: { node: n, closure: env, name: fnName(n) } };
      case "class":
        return EMPTY;
      case "jsx_element":
      case "jsx_self_closing_element":
      case "jsx_fragment":
        this.jsx(n, env);
        return EMPTY; // React escapes what it renders
      default:
        if (TS_WRAPPERS.has(n.type) && n.namedChildren[0]) return this.expr(n.namedChildren[0], env);
        return EMPTY;
    }
  }

  private jsx(n: Node, env: Env): void {
    const stack = [n];
    while (stack.length) {
      const x = stack.pop()!;
      if (x.type === "jsx_attribute") {
        const name = x.namedChildren[0]?.text;
        const value = x.namedChildren[1];
        if (name === "dangerouslySetInnerHTML" && value) {
          const v = this.expr(value.namedChildren[0] ?? value, env);
          this.sink("xss", field(v, "__html"), x, "dangerouslySetInnerHTML");
          continue;
        }
      }
      if (x.type === "jsx_expression") {
        for (const c of x.namedChildren) if (c) this.expr(c, env);
        continue;
      }
      for (const c of x.namedChildren) if (c) stack.push(c);
    }
  }

  private object(n: Node, env: Env): Val {
    const out: Val = { flows: [], fields: new Map() };
    for (const p of n.namedChildren) {
      if (!p) continue;
      if (p.type === "pair") {
        const key = p.childForFieldName("key");
        const value = p.childForFieldName("value");
        if (key && value) {
          const v = this.expr(value, env);
          out.fields!.set(propertyKey(key, this, env), v);
        }
      } else if (p.type === "shorthand_property_identifier") {
        out.fields!.set(p.text, env.lookup(p.text) ?? EMPTY);
      } else if (p.type === "spread_element") {
        const v = this.expr(p.namedChildren[0]!, env);
        for (const [k, fv] of v.fields ?? []) out.fields!.set(k, fv);
        if (v.flows.length) out.elems = join(out.elems, { flows: v.flows });
      } else if (p.type === "method_definition") {
        const name = p.childForFieldName("name")?.text;
        if (name) out.fields!.set(name, { flows: [], fn: { node: p, closure: env, name } });
      }
    }
    if (out.elems) out.flows = out.elems.flows;
    return out;
  }

  private binary(n: Node, env: Env): Val {
    const op = n.childForFieldName("operator")?.text ?? "";
    const l = this.expr(n.childForFieldName("left")!, env);
    const r = this.expr(n.childForFieldName("right")!, env);
    if (op === "+") {
      if (l.hasConst && r.hasConst && typeof l.c === "number" && typeof r.c === "number") return constant(l.c + r.c);
      return concat([l, r]);
    }
    if (op === "||" || op === "??") {
      if (l.hasConst) return l.c ? l : r;
      return join(l, r);
    }
    if (op === "&&") {
      if (l.hasConst) return l.c ? r : l;
      return join(l, r);
    }
    if (l.hasConst && r.hasConst) {
      const a = l.c as never;
      const b = r.c as never;
      switch (op) {
        case "===":
        case "==":
          return constant(a === b);
        case "!==":
        case "!=":
          return constant(a !== b);
        case "<":
          return constant(a < b);
        case ">":
          return constant(a > b);
        case "<=":
          return constant(a <= b);
        case ">=":
          return constant(a >= b);
      }
    }
    if (/^(?:===|!==|==|!=|<|>|<=|>=|instanceof|in)$/.test(op)) return EMPTY;
    return numeric(join(l, r)); // arithmetic: a number (still predictable if made from a weak random)
  }

  /** The value of a condition when it is known here (constant-false branches are dead). */
  constBool(cond: Node, env: Env): boolean | undefined {
    const c = unwrap(cond);
    if (!/^(?:true|false|number|null|undefined|identifier|unary_expression|binary_expression|string)$/.test(c.type))
      return undefined;
    if (c.type === "identifier" && !env.lookup(c.text)?.hasConst) return undefined;
    const v = this.expr(c, env);
    return v.hasConst ? Boolean(v.c) : undefined;
  }

  member(obj: Val, prop: string, node: Node, env: Env): Val {
    const modelled = memberModel(this, obj, prop, node, env);
    if (modelled) return modelled;
    if (obj.kind === "module" && obj.path) return { flows: [], kind: "module", path: `${obj.path}.${prop}` };
    if (obj.kind === "local-import" && obj.path?.endsWith("#*"))
      return { flows: [], kind: "local-import", path: `${obj.path.slice(0, -1)}${prop}` };
    if (prop === "length" && !obj.fields?.has("length")) return EMPTY;
    return field(obj, prop);
  }

  // ---- calls -------------------------------------------------------------------------------------

  private call(n: Node, env: Env, isNew: boolean): Val {
    const calleeNode = n.childForFieldName(isNew ? "constructor" : "function");
    if (!calleeNode) return EMPTY;
    let recv: Val | undefined;
    let recvNode: Node | undefined;
    let method: string;
    let callee: Val;
    const inner = unwrap(calleeNode);
    if (inner.type === "member_expression" || inner.type === "subscript_expression") {
      recvNode = inner.childForFieldName("object") ?? undefined;
      recv = recvNode ? this.expr(recvNode, env) : EMPTY;
      if (inner.type === "member_expression") method = inner.childForFieldName("property")?.text ?? "";
      else {
        const index = inner.childForFieldName("index");
        const iv = index ? this.expr(index, env) : EMPTY;
        method = iv.hasConst ? String(iv.c) : "";
      }
      callee = method ? this.member(recv, method, inner, env) : EMPTY;
    } else {
      callee = this.expr(calleeNode, env);
      method = inner.type === "identifier" ? inner.text : "";
    }
    const argsNode = n.childForFieldName("arguments");
    const argNodes: Node[] = [];
    if (argsNode?.type === "template_string") argNodes.push(argsNode);
    else for (const a of argsNode?.namedChildren ?? []) if (a && a.type !== "comment") argNodes.push(a);
    const tagged = argsNode?.type === "template_string";
    const args = tagged ? [EMPTY] : argNodes.map((a) => this.expr(a, env));
    if (tagged) for (const c of argsNode!.namedChildren) if (c?.type === "template_substitution") this.expr(c, env);

    const site: JsCall = {
      node: n,
      calleeNode,
      callee: calleeName(callee, calleeNode),
      calleeVal: callee,
      method,
      recv,
      recvNode,
      args,
      argNodes,
      isNew,
      tagged,
      env,
    };

    // Function.prototype.call / apply and Reflect.apply on a known function.
    if ((method === "call" || method === "apply") && recv?.fn) {
      const rest = method === "call" ? args.slice(1) : [element(args[1] ?? EMPTY)];
      return this.invoke(recv.fn, rest, args[0]);
    }

    const modelled = callModel(this, site);
    if (modelled !== undefined) {
      this.callbacks(site, modelled.callbackArgs);
      return modelled.result ?? EMPTY;
    }
    if (callee.fn) {
      const self = isNew ? (callee.fn.self ?? { flows: [], fields: new Map() }) : recv?.kind ? undefined : recv;
      const stepped = args.map((a) => addStep(a, { line: line(n), what: `${snippet(calleeNode, 30)}(…)` }));
      const ret = this.invoke(callee.fn, stepped, self && self !== EMPTY ? self : undefined);
      if (isNew && callee.kind === "class") return callee.fn.self ?? EMPTY;
      return ret;
    }
    if (isNew && callee.kind === "class") return { flows: [], fields: new Map(callee.fields) };
    if (isNew && !deepFlows({ flows: [], elems: joinAll(args) }).length) {
      this.callbacks(site);
      return { flows: [], fields: new Map() }; // a fresh object (a Map, a Set, a client …) that can hold data
    }
    if (callee.kind === "local-import" && callee.path) {
      const [specifier, name] = callee.path.split("#") as [string, string];
      this.importedCalls.push({ specifier, name, args, node: n });
    }
    if (recv?.kind === "local-import" && recv.path && method) {
      const [specifier] = recv.path.split("#") as [string, string];
      this.importedCalls.push({ specifier, name: method, args, node: n });
    }
    this.callbacks(site);
    if (isRouteRegistration(site)) return recv ?? EMPTY;
    // Unknown call: data passes through (a conservative default that keeps recall).
    return passThrough(site);
  }

  /** Functions passed as arguments run: analyse them with what the model (or the receiver) gives them. */
  private callbacks(site: JsCall, given?: (Val[] | undefined)[]): void {
    site.args.forEach((a, i) => {
      if (!a.fn || this.analysed.has(a.fn.node.id)) return;
      const modelArgs = given?.[i];
      let params: Val[];
      if (modelArgs) params = modelArgs;
      else if (
        site.recv &&
        /^(?:forEach|map|filter|find|findLast|some|every|flatMap|reduce|then|sort)$/.test(site.method)
      )
        params =
          site.method === "reduce"
            ? [EMPTY, element(site.recv)]
            : site.method === "then"
              ? [site.recv]
              : [element(site.recv)];
      else params = [];
      this.invoke(a.fn, params);
    });
  }
}

/** Functions declared at the top of a module (directly, exported, or as `const f = () => …`). */
function topLevelFunctions(root: Node): Node[] {
  const out: Node[] = [];
  for (const child of root.namedChildren) {
    const decl =
      child?.type === "export_statement" ? (child.childForFieldName("declaration") ?? child.namedChildren[0]) : child;
    if (!decl) continue;
    if (FUNCTION_TYPES.has(decl.type)) out.push(decl);
    else if (decl.type === "lexical_declaration" || decl.type === "variable_declaration")
      for (const d of decl.namedChildren) {
        const v = d?.childForFieldName("value");
        if (v && FUNCTION_TYPES.has(v.type)) out.push(v);
      }
  }
  return out;
}

const BORING_KINDS = new Set(["module", "class", "local-import", "regex"]);

/** A value worth following into a function: it carries data, or the model knows what it is. */
function interesting(v: Val): boolean {
  if (v.kind && !BORING_KINDS.has(v.kind)) return true;
  if (v.fn) return false;
  return deepFlows(v, 2).length > 0;
}

/** Does any variable of the function scopes around (not the module) carry untrusted data? */
function envTainted(env: Env | undefined): boolean {
  for (let e = env; e?.parent; e = e.parent)
    for (const v of e.vars.values())
      if (v.flows.length || (v.kind && !BORING_KINDS.has(v.kind)) || (v.fields && deepFlows(v, 1).length)) return true;
  return false;
}

/** Unknown call: the receiver's and arguments' flows reach the result, made a string-ish value. */
function passThrough(site: JsCall): Val {
  const parts: Val[] = [];
  if (site.recv && site.recv.kind !== "module") parts.push(site.recv);
  for (const a of site.args) if (!a.fn) parts.push(a);
  const flows = parts.flatMap((p) => deepFlows(p, 2));
  if (flows.length === 0) return EMPTY;
  return stringify({ flows: flows.slice(0, 6) });
}

// ---- helpers -------------------------------------------------------------------------------------

export function unwrap(n: Node): Node {
  let x = n;
  while (TS_WRAPPERS.has(x.type) && x.namedChildren[0]) x = x.namedChildren[0];
  return x;
}

function refinable(n: Node): boolean {
  return n.type === "identifier" || n.type === "member_expression" || n.type === "subscript_expression";
}

export function unquote(text: string): string {
  const q = text[0];
  if ((q === '"' || q === "'" || q === "`") && text.endsWith(q)) return text.slice(1, -1);
  return text;
}

function propertyKey(key: Node, a: JsAnalyzer, env: Env): string {
  if (key.type === "string") return unquote(key.text);
  if (key.type === "computed_property_name") {
    const v = key.namedChildren[0] ? a.expr(key.namedChildren[0], env) : EMPTY;
    return v.hasConst ? String(v.c) : "*";
  }
  return key.text;
}

const NODE_PREFIX = /^node:/;
function moduleName(spec: string, imported: string): string {
  const base = spec.replace(NODE_PREFIX, "").replace(/\/promises$/, "");
  return imported === "*" || imported === "default" ? base : `${base}.${imported}`;
}

function globalValue(name: string): Val {
  switch (name) {
    case "require":
      return { flows: [], kind: "require" };
    case "process":
    case "Math":
    case "JSON":
    case "Object":
    case "Array":
    case "String":
    case "Number":
    case "Reflect":
    case "globalThis":
    case "window":
    case "global":
    case "document":
    case "crypto":
    case "Buffer":
    case "URL":
    case "Response":
    case "NextResponse":
    case "eval":
    case "Function":
    case "fetch":
    case "setTimeout":
    case "setInterval":
    case "parseInt":
    case "parseFloat":
    case "encodeURIComponent":
    case "encodeURI":
    case "escape":
    case "Promise":
    case "Date":
      return { flows: [], kind: "module", path: name };
    default:
      return { flows: [] };
  }
}

function calleeName(callee: Val, node: Node): string {
  if (callee.kind === "module" && callee.path) return callee.path.replace(/^(?:globalThis|window|global)\./, "");
  return node.text.replace(/\s+/g, "").replace(/\?\./g, ".");
}

export function paramNodes(fn: Node): Node[] {
  const params = fn.childForFieldName("parameters");
  if (params) return params.namedChildren.filter((p): p is Node => !!p && p.type !== "comment");
  const single = fn.childForFieldName("parameter");
  return single ? [single] : [];
}

export function paramName(p: Node): string {
  const inner = p.childForFieldName("pattern") ?? p.childForFieldName("left") ?? p;
  return inner.type === "identifier" ? inner.text : inner.text.slice(0, 40);
}

export function fnName(fn: Node): string {
  const own = fn.childForFieldName("name")?.text;
  if (own) return own;
  const parent = fn.parent;
  if (parent?.type === "variable_declarator") return parent.childForFieldName("name")?.text ?? "";
  if (parent?.type === "pair") return parent.childForFieldName("key")?.text ?? "";
  if (parent?.type === "assignment_expression") return parent.childForFieldName("left")?.text ?? "";
  return "";
}

function isExported(fn: Node): boolean {
  for (let n: Node | null = fn.parent; n; n = n.parent) {
    if (n.type === "export_statement") return true;
    if (n.type === "program") break;
  }
  // module.exports = { fn } / exports.fn = …: the name is exported if the file says so.
  const name = fnName(fn);
  return !!name && commonJsExports(fn).has(name);
}

const exportsOf = new WeakMap<object, Set<string>>();
function commonJsExports(n: Node): Set<string> {
  let r = n;
  while (r.parent) r = r.parent;
  const key = r.tree;
  let names = exportsOf.get(key);
  if (!names) {
    names = new Set();
    const text = r.text.length > 400_000 ? "" : r.text;
    for (const m of text.matchAll(/(?:module\.)?exports(?:\.(\w+))?\s*=\s*(?:\{([^}]{0,2000})\}|(\w+))/g)) {
      if (m[1]) names.add(m[1]);
      if (m[3]) names.add(m[3]);
      for (const id of (m[2] ?? "").matchAll(/[A-Za-z_$][\w$]*/g)) names.add(id[0]);
    }
    exportsOf.set(key, names);
  }
  return names;
}

/** `res.status(403).send(…)`, `process.exit()`, `next(err)` … a statement the handler does not continue after. */
function isExitCall(s: Node): boolean {
  return /^(?:process\.exit|abort)\(/.test(s.text);
}
