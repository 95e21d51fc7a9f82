/**
 * The Python taint interpreter: the same abstract interpretation as the JavaScript one (flow-sensitive
 * scopes, strong updates, dead constant branches, guard refinement, in-context calls of the file's
 * functions, class fields through `self`), over tree-sitter-python's tree. Flask, Django and FastAPI
 * — sources, sinks, sanitizers — live in model.ts.
 */
import type { Node } from "../../../treesitter.ts";
import type { RuleContext } from "../../rules/context.ts";
import { Analyzer, Env, flagOf } from "../analyzer.ts";
import { guardFacts } from "../guards.ts";
import {
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
  addElement,
  snippet,
  stringify,
  type Val,
} from "../values.ts";
import { pyCallModel } from "./calls.ts";
import { pyMemberModel, pyAssignModel, viewParams, type PyCall } from "./model.ts";
import type { Param } from "./host.ts";

type Outcome = "normal" | "exit";

interface Frame {
  returns: Val[];
  fnName: string;
  /** A Flask view (or a FastAPI route with an HTML response class): a returned string is HTML. */
  htmlReturn: boolean;
}

const PY_SOURCE_TEXT =
  /\brequest\b|@\s*[\w.]+\s*\.\s*(?:route|get|post|put|delete|patch|api_route)\s*\(|sys\s*\.\s*argv|\benviron\b|\bgetenv\b|\binput\s*\(|\bopen\s*\(|\brandom\s*\.|\.read\w*\s*\(|\bparse_(?:known_)?args\b|\.task\b|shared_task|\bactor\b|def\s+\w+\(\s*(?:ch|channel)\s*,|\bConsumer\b|\bKafkaConsumer\b|\breceive_messages?\b/;
const PY_SINK_TEXT =
  /\b(?:system|popen|run|call|Popen|check_output|check_call|getoutput|eval|exec|compile|execute|executemany|executescript|raw|extra|text|open|send_file|FileResponse|remove|unlink|rmtree|redirect|HttpResponseRedirect|RedirectResponse|get|post|put|urlopen|request|loads?|load_all|unsafe_load|xpath|findall|find|search_s|search|fromstring|parse|XML|render_template_string|Template|from_string|HttpResponse|HTMLResponse|Markup|mark_safe|make_response|Response|set_cookie|md5|sha1|new|find_one|update_one|delete_many|aggregate|count_documents|TemplateLookup|Engine|format_html)\s*\(|\bsession\s*\[/;

const SECRET_NAME =
  /pass(?:word|wd|phrase)?|pwd|secret|token|nonce|otp|csrf|session_?id|\bsid\b|api_?key|reset|salt|invite|share/i;

export class PyAnalyzer extends Analyzer {
  readonly module = new Env();
  private frames: Frame[] = [];
  readonly localImports = new Map<string, { specifier: string; name: string }>();
  readonly importedCalls: { specifier: string; name: string; args: Val[]; node: Node }[] = [];
  /** Which web framework the file imports (decides what a decorated function's parameters are). */
  readonly framework: "flask" | "fastapi" | "django" | null;

  constructor(ctx: RuleContext, budgetMs: number) {
    super(ctx, { budgetMs });
    const s = ctx.source;
    this.framework = /^\s*(?:from|import)\s+fastapi\b/m.test(s)
      ? "fastapi"
      : /^\s*(?:from|import)\s+flask\b/m.test(s)
        ? "flask"
        : /^\s*(?:from|import)\s+django\b/m.test(s)
          ? "django"
          : null;
  }

  run(root: Node): void {
    this.hoist(root.namedChildren, this.module);
    this.block(root.namedChildren, this.module);
    for (const fn of allFunctions(root)) {
      if (this.analysed.has(fn.id)) continue;
      // Only functions that can matter: a view, a reader of a source, or a module-level sink user.
      const text = fn.parent?.type === "decorated_definition" ? fn.parent.text : fn.text;
      if (!PY_SOURCE_TEXT.test(text) && !PY_SINK_TEXT.test(text)) continue;
      this.analyseEntry(fn);
    }
  }

  private analyseEntry(fn: Node): void {
    const params = paramList(fn);
    const decorators = decoratorsOf(fn);
    const inClass =
      fn.parent?.parent?.type === "class_definition" || fn.parent?.parent?.parent?.type === "class_definition";
    const view = viewParams(this, fn, params, decorators, inClass);
    const cls = classOf(fn);
    const self = cls ? this.instance(cls) : undefined;
    const args = params.map((p, i) => {
      if (view.args[i]) return view.args[i]!;
      if (i === 0 && inClass && (p.name === "self" || p.name === "cls")) return self ?? EMPTY;
      // Symbolic parameters (for other files' callers) only on module-level functions.
      return fn.parent?.type === "module" || fn.parent?.parent?.type === "module"
        ? this.symbolicParam(i, p.name, p.node)
        : EMPTY;
    });
    const ret = this.invoke(
      { node: fn, closure: this.module, name: fn.childForFieldName("name")?.text ?? "", ...(self ? { self } : {}) },
      args,
      view.htmlReturn,
    );
    if (!view.isView && !fn.childForFieldName("name")?.text.startsWith("_") && fn.parent?.type !== "block")
      this.summarise(fn.childForFieldName("name")?.text ?? "", fn, ret);
  }

  instance(cls: Node): Val {
    return this.instanceOf(cls.id);
  }

  // ---- functions ---------------------------------------------------------------------------------

  invoke(fn: NonNullable<Val["fn"]>, args: Val[], htmlReturn = false, kwargs?: Map<string, Val>): Val {
    const node = fn.node;
    const kwKey = kwargs ? [...kwargs.entries()] : [];
    return this.callFunction(node, [...args, ...kwKey.map(([, v]) => v), constant(htmlReturn)], () => {
      const env = new Env(fn.closure as Env);
      const params = paramList(node);
      params.forEach((p, i) => {
        let v = args[i];
        if (p.kind === "splat") v = { flows: [], elems: joinAll(args.slice(i)) };
        else if (p.kind === "kwsplat")
          v = { flows: [], fields: new Map(kwargs ?? []), elems: joinAll([...(kwargs?.values() ?? [])]) };
        else if (kwargs?.has(p.name)) v = kwargs.get(p.name);
        if (!v && p.default) v = this.expr(p.default, env);
        env.declare(p.name, addStep(v ?? EMPTY, { line: line(p.node), what: `parameter ${p.name}` }));
      });
      const frame: Frame = { returns: [], fnName: fn.name, htmlReturn };
      this.frames.push(frame);
      try {
        const body = node.childForFieldName("body");
        if (!body) return EMPTY;
        if (node.type === "lambda") return this.expr(body, env);
        this.assertFollowable(fn.name, node, body);
        this.hoist(body.namedChildren, env);
        this.block(body.namedChildren, env);
        return joinAll(frame.returns);
      } finally {
        this.frames.pop();
      }
    });
  }

  private hoist(statements: (Node | null)[], env: Env): void {
    for (const s of statements) {
      const def = s?.type === "decorated_definition" ? s.childForFieldName("definition") : s;
      if (def?.type === "function_definition") {
        const name = def.childForFieldName("name")?.text;
        if (name) env.declare(name, { flows: [], fn: { node: def, closure: env, name } });
      }
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  block(statements: (Node | null)[], env: Env): Outcome {
    for (const s of statements) if (s && this.statement(s, env) === "exit") return "exit";
    return "normal";
  }

  private statement(s: Node, env: Env): Outcome {
    this.tick();
    switch (s.type) {
      case "expression_statement":
        for (const c of s.namedChildren) if (c) this.expr(c, env);
        return /^(?:abort|sys\.exit|exit|flask\.abort)\s*\(/.test(s.text) ? "exit" : "normal";
      case "return_statement": {
        const value = s.namedChildren[0];
        let v = value ? this.expr(value, env) : EMPTY;
        const frame = this.frames[this.frames.length - 1];
        if (frame) {
          // `return body, 200` — the body is the first element.
          const body = value?.type === "expression_list" ? value.namedChildren[0] : value;
          const bodyVal = value?.type === "expression_list" && body ? this.expr(body, env) : v;
          if (frame.htmlReturn && body && !/^(?:dictionary|list|call)$/.test(body.type) && !bodyVal.fields)
            this.sink("xss", bodyVal, s, "the view's HTML response", false);
          if (frame.htmlReturn && body?.type === "call" && !bodyVal.fields && !bodyVal.kind)
            this.sink("xss", bodyVal, s, "the view's HTML response", false);
          if (SECRET_NAME.test(frame.fnName)) this.sink("weak-random", v, s, `return from ${frame.fnName}()`);
          v = addStep(v, { line: line(s), what: "return" });
          frame.returns.push(v);
        }
        return "exit";
      }
      case "raise_statement":
        for (const c of s.namedChildren) if (c) this.expr(c, env);
        return "exit";
      case "if_statement":
        return this.ifStatement(s, env);
      case "for_statement": {
        const right = s.childForFieldName("right");
        const left = s.childForFieldName("left");
        const iter = right ? this.expr(right, env) : EMPTY;
        if (left) this.bind(left, element(iter), env);
        const body = s.childForFieldName("body");
        if (body) this.loop(body, env);
        const alt = s.childForFieldName("alternative");
        if (alt) this.block(alt.namedChildren, env);
        return "normal";
      }
      case "while_statement": {
        const cond = s.childForFieldName("condition");
        if (cond && this.constBool(cond, env) === false) return "normal";
        if (cond) this.expr(cond, env);
        const body = s.childForFieldName("body");
        if (body) this.loop(body, env);
        return "normal";
      }
      case "try_statement": {
        const body = s.childForFieldName("body");
        const before = env.fork();
        const out = body ? this.block(body.namedChildren, env) : "normal";
        const live: Env[] = out === "normal" ? [env.fork()] : [];
        let elseClause: Node | null = null;
        let finallyClause: Node | null = null;
        for (const c of s.namedChildren) {
          if (!c) continue;
          if (c.type === "except_clause" || c.type === "except_group_clause") {
            const fork = env.fork();
            fork.absorb([fork, before]);
            const value = c.namedChildren.find((x) => x?.type === "as_pattern");
            const alias = value?.childForFieldName("alias")?.namedChildren[0];
            if (alias) fork.declare(alias.text, EMPTY);
            const block = c.namedChildren.find((x) => x?.type === "block");
            if (!block || this.block(block.namedChildren, fork) === "normal") live.push(fork);
          } else if (c.type === "else_clause") elseClause = c;
          else if (c.type === "finally_clause") finallyClause = c;
        }
        if (elseClause && out === "normal") {
          const b = elseClause.childForFieldName("body") ?? elseClause.namedChildren.find((x) => x?.type === "block");
          if (b) this.block(b.namedChildren, env);
        }
        if (live.length) env.absorb(live);
        const fb = finallyClause?.namedChildren.find((x) => x?.type === "block");
        if (fb && this.block(fb.namedChildren, env) === "exit") return "exit";
        return live.length ? "normal" : "exit";
      }
      case "with_statement": {
        for (const clause of s.namedChildren) {
          if (clause?.type !== "with_clause") continue;
          for (const item of clause.namedChildren) {
            const value = item?.childForFieldName("value");
            if (!value) continue;
            if (value.type === "as_pattern") {
              const inner = value.namedChildren[0];
              const v = inner ? this.expr(inner, env) : EMPTY;
              const target = value.childForFieldName("alias")?.namedChildren[0];
              if (target) this.bind(target, v, env);
            } else this.expr(value, env);
          }
        }
        const body = s.childForFieldName("body");
        return body ? this.block(body.namedChildren, env) : "normal";
      }
      case "function_definition": {
        const name = s.childForFieldName("name")?.text;
        if (name && !env.vars.get(name)?.fn) env.declare(name, { flows: [], fn: { node: s, closure: env, name } });
        return "normal";
      }
      case "decorated_definition": {
        const def = s.childForFieldName("definition");
        if (def) return this.statement(def, env);
        return "normal";
      }
      case "class_definition":
        this.classDefinition(s, env);
        return "normal";
      case "import_statement":
      case "import_from_statement":
        this.importStatement(s, env);
        return "normal";
      case "assert_statement": {
        const cond = s.namedChildren[0];
        if (cond) for (const f of guardFacts(cond, "python").whenTrue) env.refine(f.key, f.clean);
        return "normal";
      }
      case "block":
        return this.block(s.namedChildren, env);
      case "break_statement":
      case "continue_statement":
        return "exit";
      default:
        return "normal";
    }
  }

  private loop(body: Node, env: Env): void {
    for (let i = 0; i < 2; i++) {
      const fork = env.fork();
      this.block(body.namedChildren, fork);
      const changed = [...fork.vars].some(([k, v]) => v !== env.vars.get(k) && deepFlows(v, 1).length > 0);
      env.absorb([env.fork(), fork]);
      if (!changed) break;
    }
  }

  private ifStatement(s: Node, env: Env): Outcome {
    const cond = s.childForFieldName("condition");
    const then = s.childForFieldName("consequence");
    const alternatives = s.childrenForFieldName("alternative").filter((x): x is Node => !!x);
    return this.branch(cond, then, alternatives, env);
  }

  /** if / elif / else as a chain: each elif is the else branch of the one before. */
  private branch(cond: Node | null, then: Node | null, rest: Node[], env: Env): Outcome {
    const known = cond ? this.constBool(cond, env) : undefined;
    const runElse = (e: Env): Outcome => {
      const [next, ...more] = rest;
      if (!next) return "normal";
      if (next.type === "elif_clause")
        return this.branch(next.childForFieldName("condition"), next.childForFieldName("consequence"), more, e);
      const body = next.childForFieldName("body") ?? next.namedChildren.find((x) => x?.type === "block") ?? null;
      return body ? this.block(body.namedChildren, e) : "normal";
    };
    if (known === true) return then ? this.block(then.namedChildren, env) : "normal";
    if (known === false) return runElse(env);
    if (cond) this.expr(cond, env);
    const facts = cond ? guardFacts(cond, "python") : { whenTrue: [], whenFalse: [] };
    const thenEnv = env.fork();
    for (const f of facts.whenTrue) thenEnv.refine(f.key, f.clean);
    const elseEnv = env.fork();
    for (const f of facts.whenFalse) elseEnv.refine(f.key, f.clean);
    const flag = flagOf(cond);
    if (flag) {
      thenEnv.applyFlag(flag.flag, flag.holds);
      elseEnv.applyFlag(flag.flag, !flag.holds);
    }
    const a = then ? this.block(then.namedChildren, thenEnv) : "normal";
    const b = runElse(elseEnv);
    const live = [a === "normal" ? thenEnv : null, b === "normal" ? elseEnv : null].filter((x): x is Env => !!x);
    if (!live.length) return "exit";
    env.absorb(live);
    if (flag && live.length === 2) env.rememberFlag(flag.flag, flag.holds, thenEnv, elseEnv);
    return "normal";
  }

  private classDefinition(s: Node, env: Env): void {
    const name = s.childForFieldName("name")?.text ?? "";
    const inst = this.instance(s);
    const body = s.childForFieldName("body");
    const cls: Val = { flows: [], kind: "class", fields: new Map(), meta: { name } };
    for (const c of body?.namedChildren ?? []) {
      const def = c?.type === "decorated_definition" ? c.childForFieldName("definition") : c;
      if (def?.type === "function_definition") {
        const mname = def.childForFieldName("name")?.text ?? "";
        const m: Val = { flows: [], fn: { node: def, closure: env, name: `${name}.${mname}`, self: inst } };
        cls.fields!.set(mname, m);
        if (!inst.fields!.has(mname)) setField(inst, mname, m);
        if (mname === "__init__") cls.fn = m.fn;
      } else if (c?.type === "expression_statement") {
        const a = c.namedChildren[0];
        if (a?.type === "assignment") {
          const left = a.childForFieldName("left");
          const right = a.childForFieldName("right");
          if (left?.type === "identifier" && right) {
            const v = this.expr(right, env);
            cls.fields!.set(left.text, v);
            if (!inst.fields!.has(left.text)) setField(inst, left.text, v);
          }
        }
      }
    }
    cls.meta = { name, node: String(s.id) };
    if (name) env.declare(name, cls);
  }

  private importStatement(s: Node, env: Env): void {
    if (s.type === "import_statement") {
      for (const n of s.namedChildren) {
        if (!n) continue;
        if (n.type === "dotted_name")
          env.declare(n.text.split(".")[0]!, { flows: [], kind: "module", path: n.text.split(".")[0]! });
        else if (n.type === "aliased_import") {
          const name = n.childForFieldName("name")?.text ?? "";
          const alias = n.childForFieldName("alias")?.text;
          if (alias) env.declare(alias, { flows: [], kind: "module", path: name });
        }
      }
      return;
    }
    const moduleNode = s.childForFieldName("module_name");
    const mod = moduleNode?.text ?? "";
    const local = moduleNode?.type === "relative_import";
    for (const n of s.childrenForFieldName("name")) {
      if (!n) continue;
      const name = n.type === "aliased_import" ? (n.childForFieldName("name")?.text ?? "") : n.text;
      const alias = n.type === "aliased_import" ? (n.childForFieldName("alias")?.text ?? name) : name;
      if (local) {
        this.localImports.set(alias, { specifier: mod, name });
        env.declare(alias, { flows: [], kind: "local-import", path: `${mod}#${name}` });
      } else {
        const v: Val = { flows: [], kind: "module", path: `${mod}.${name}` };
        env.declare(alias, pyImportedValue(v) ?? v);
      }
    }
  }

  bind(target: Node, v: Val, env: Env): void {
    switch (target.type) {
      case "identifier":
        env.assign(target.text, v);
        this.secretName(target.text, v, target);
        return;
      case "pattern_list":
      case "tuple_pattern":
      case "list_pattern":
      case "expression_list":
      case "tuple":
      case "list": {
        let i = 0;
        for (const c of target.namedChildren) {
          if (!c) continue;
          if (c.type === "list_splat_pattern" || c.type === "list_splat") {
            const id = c.namedChildren[0];
            if (id) this.bind(id, { flows: [], elems: element(v) }, env);
          } else this.bind(c, v.fields?.get(String(i)) ?? element(v), env);
          i++;
        }
        return;
      }
      case "attribute": {
        const obj = this.expr(target.childForFieldName("object")!, env);
        const attr = target.childForFieldName("attribute")?.text ?? "";
        pyAssignModel(this, obj, attr, v, target);
        setField(obj, attr, v);
        env.forget(target.text);
        if (SECRET_NAME.test(attr)) this.sink("weak-random", v, target, `${attr} =`);
        return;
      }
      case "subscript": {
        const obj = this.expr(target.childForFieldName("value")!, env);
        const sub = target.childForFieldName("subscript");
        const k = sub ? this.expr(sub, env) : EMPTY;
        const key = k.hasConst ? String(k.c) : undefined;
        pyAssignModel(this, obj, key, v, target, k);
        if (key !== undefined) setField(obj, key, v);
        else addElement(obj, v);
        env.forget(target.text);
        if (key && SECRET_NAME.test(key)) this.sink("weak-random", v, target, `[${key}] =`);
        return;
      }
      default:
        return;
    }
  }

  private secretName(name: string, v: Val, node: Node): void {
    if (SECRET_NAME.test(name)) this.sink("weak-random", v, node, `${name} =`);
  }

  // ---- expressions -------------------------------------------------------------------------------

  expr(n: Node, env: Env): Val {
    this.enter();
    try {
      const refined = /^(?:identifier|attribute|subscript)$/.test(n.type) ? env.refinement(n.text) : undefined;
      const v = this.exprRaw(n, env);
      return refined ? clean(v, refined) : v;
    } finally {
      this.leave();
    }
  }

  private exprRaw(n: Node, env: Env): Val {
    switch (n.type) {
      case "identifier":
        return env.lookup(n.text) ?? builtin(n.text);
      case "string":
        return this.string(n, env);
      case "concatenated_string":
        return concat(n.namedChildren.filter((c): c is Node => !!c).map((c) => this.string(c, env)));
      case "integer":
      case "float":
        return constant(Number(n.text.replace(/_/g, "")) || 0);
      case "true":
        return constant(true);
      case "false":
        return constant(false);
      case "none":
        return constant(null);
      case "attribute": {
        const obj = this.expr(n.childForFieldName("object")!, env);
        const attr = n.childForFieldName("attribute")?.text ?? "";
        return this.member(obj, attr, n);
      }
      case "subscript": {
        const obj = this.expr(n.childForFieldName("value")!, env);
        const sub = n.childForFieldName("subscript");
        const k = sub ? this.expr(sub, env) : EMPTY;
        if (sub?.type === "slice") return stringify(obj.fields || obj.elems ? { flows: [], elems: element(obj) } : obj);
        if (k.hasConst && k.c !== null) return this.member(obj, String(k.c), n, true);
        return join(element(obj), obj.kind ? this.member(obj, "*", n, true) : EMPTY);
      }
      case "call":
        return this.call(n, env);
      case "await":
      case "parenthesized_expression":
      case "list_splat":
      case "dictionary_splat": {
        const inner = n.namedChildren[0];
        return inner ? this.expr(inner, env) : EMPTY;
      }
      case "binary_operator":
        return this.binary(n, env);
      case "boolean_operator": {
        const op = n.childForFieldName("operator")?.text ?? n.child(1)?.text;
        const l = this.expr(n.childForFieldName("left")!, env);
        const r = this.expr(n.childForFieldName("right")!, env);
        if (l.hasConst) return op === "and" ? (l.c ? r : l) : l.c ? l : r;
        return join(l, r);
      }
      case "not_operator": {
        const v = this.expr(n.childForFieldName("argument")!, env);
        return v.hasConst ? constant(!v.c) : EMPTY;
      }
      case "comparison_operator": {
        const parts = n.namedChildren.filter((c): c is Node => !!c).map((c) => this.expr(c, env));
        const op = n.children
          .filter((c) => c && !c.isNamed)
          .map((c) => c!.text)
          .join(" ");
        const [a, b] = parts;
        if (a?.hasConst && b?.hasConst) {
          if (op === "==" || op === "is") return constant(a.c === b.c);
          if (op === "!=" || op === "is not") return constant(a.c !== b.c);
          if (op === "<") return constant((a.c as number) < (b.c as number));
          if (op === ">") return constant((a.c as number) > (b.c as number));
        }
        return EMPTY;
      }
      case "unary_operator":
        return EMPTY;
      case "conditional_expression":
        return this.conditional(n, env);
      case "named_expression": {
        const name = n.childForFieldName("name");
        const value = n.childForFieldName("value");
        const v = value ? this.expr(value, env) : EMPTY;
        if (name) env.assign(name.text, v);
        return v;
      }
      case "assignment": {
        const left = n.childForFieldName("left");
        const right = n.childForFieldName("right");
        if (!left || !right) return EMPTY;
        const v = addStep(this.expr(right, env), { line: line(n), what: `${snippet(left, 30)} = …` });
        this.bind(left, v, env);
        return v;
      }
      case "augmented_assignment":
        return this.augmentedAssignment(n, env);
      case "list":
      case "tuple":
      case "set":
      case "expression_list":
        return this.sequence(n.namedChildren, "list_splat", (c) => this.expr(c, env));
      case "dictionary":
        return this.dictionary(n, env);
      case "list_comprehension":
      case "set_comprehension":
      case "generator_expression":
      case "dictionary_comprehension":
        return this.comprehension(n, env);
      case "lambda":
        return { flows: [], fn: { node: n, closure: env, name: "lambda" } };
      case "keyword_argument": {
        const v = n.childForFieldName("value");
        return v ? this.expr(v, env) : EMPTY;
      }
      default:
        return EMPTY;
    }
  }

  /** `a + b`, `"…%s" % x` and constant arithmetic. */
  private binary(n: Node, env: Env): Val {
    const op = n.childForFieldName("operator")?.text ?? "";
    const l = this.expr(n.childForFieldName("left")!, env);
    const r = this.expr(n.childForFieldName("right")!, env);
    if (op === "+") {
      if (typeof l.c === "number" && typeof r.c === "number") return constant(l.c + r.c);
      if ((l.elems || l.fields) && !l.hasConst) return { flows: [], elems: join(element(l), element(r)) };
      return concat([l, r]);
    }
    if (op === "%" && (l.hasConst || l.frag)) {
      // "seq %d" % n: every conversion is numeric, so nothing of the data but digits reaches the text.
      const specs = typeof l.c === "string" ? (l.c.match(/%[-+ #0-9.*]*[a-zA-Z]/g) ?? []) : [];
      if (specs.length && specs.every((x) => /[diouxXeEfFgG]$/.test(x))) return concat([l, numeric(r)]);
      return concat([l, stringify(r.fields || r.elems ? { flows: deepFlows(r) } : r)]);
    }
    if (l.hasConst && r.hasConst && typeof l.c === "number" && typeof r.c === "number") {
      if (op === "-") return constant(l.c - r.c);
      if (op === "*") return constant(l.c * r.c);
    }
    return EMPTY;
  }

  /** `a if cond else b`: a constant condition picks its side, else each side under its guard's facts. */
  private conditional(n: Node, env: Env): Val {
    const [a, cond, b] = n.namedChildren;
    if (!a || !cond || !b) return EMPTY;
    const known = this.constBool(cond, env);
    if (known === true) return this.expr(a, env);
    if (known === false) return this.expr(b, env);
    const facts = guardFacts(cond, "python");
    const ea = env.fork();
    for (const f of facts.whenTrue) ea.refine(f.key, f.clean);
    const eb = env.fork();
    for (const f of facts.whenFalse) eb.refine(f.key, f.clean);
    return join(this.expr(a, ea), this.expr(b, eb));
  }

  /** `x += y`: a container gains y as an element, anything else is concatenated; other operators carry nothing. */
  private augmentedAssignment(n: Node, env: Env): Val {
    const left = n.childForFieldName("left")!;
    const right = n.childForFieldName("right")!;
    const op = n.childForFieldName("operator")?.text ?? "";
    const before = this.expr(left, env);
    const r = this.expr(right, env);
    const v = addStep(
      op === "+=" ? (before.elems ? { flows: [], elems: join(before.elems, element(r)) } : concat([before, r])) : EMPTY,
      {
        line: line(n),
        what: `${snippet(left, 30)} ${op} …`,
      },
    );
    this.bind(left, v, env);
    return v;
  }

  /** `{k: v, **other}`: values under constant keys are fields, the others (and a tainted key) elements. */
  private dictionary(n: Node, env: Env): Val {
    const out: Val = { flows: [], fields: new Map() };
    for (const p of n.namedChildren) {
      if (!p) continue;
      if (p.type === "pair") {
        const k = this.expr(p.childForFieldName("key")!, env);
        const v = this.expr(p.childForFieldName("value")!, env);
        if (k.hasConst) out.fields!.set(String(k.c), v);
        else {
          out.elems = join(out.elems, v);
          if (k.flows.length) out.elems = join(out.elems, k);
        }
      } else if (p.type === "dictionary_splat") {
        const v = this.expr(p.namedChildren[0]!, env);
        for (const [k, fv] of v.fields ?? []) out.fields!.set(k, fv);
        if (v.flows.length || v.elems) out.elems = join(out.elems, join({ flows: v.flows }, v.elems));
      }
    }
    return out;
  }

  /** `[body for x in xs if cond]` and its set / generator / dict forms: a container of what the body makes. */
  private comprehension(n: Node, env: Env): Val {
    const scope = new Env(env);
    for (const c of n.namedChildren) {
      if (c?.type === "for_in_clause") {
        const right = c.childForFieldName("right");
        const left = c.childForFieldName("left");
        if (right && left) this.bind(left, element(this.expr(right, scope)), scope);
      }
      // `… for c in s if c in ALLOWED`: the body sees only what the condition lets through.
      const cond = c?.type === "if_clause" ? c.namedChildren[0] : null;
      if (cond) for (const f of guardFacts(cond, "python").whenTrue) scope.refine(f.key, f.clean);
    }
    const body = n.childForFieldName("body");
    if (!body) return EMPTY;
    if (body.type === "pair") {
      const v = this.expr(body.childForFieldName("value")!, scope);
      return { flows: [], elems: v };
    }
    return { flows: [], elems: this.expr(body, scope) };
  }

  private string(n: Node, env: Env): Val {
    if (n.type !== "string") return this.expr(n, env);
    const interps = n.namedChildren.filter((c) => c?.type === "interpolation");
    if (interps.length === 0) {
      const content = n.namedChildren
        .filter((c) => c?.type === "string_content" || c?.type === "escape_sequence")
        .map((c) => c!.text)
        .join("");
      return constant(content);
    }
    const parts: Val[] = [];
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (c.type === "string_content") parts.push(constant(c.text));
      else if (c.type === "interpolation") {
        const e = c.childForFieldName("expression") ?? c.namedChildren[0];
        parts.push(e ? this.expr(e, env) : EMPTY);
      }
    }
    const out = concat(parts);
    delete out.hasConst;
    delete out.c;
    return out;
  }

  constBool(cond: Node, env: Env): boolean | undefined {
    if (
      !/^(?:true|false|integer|none|identifier|not_operator|comparison_operator|string|boolean_operator|parenthesized_expression)$/.test(
        cond.type,
      )
    )
      return undefined;
    if (cond.type === "identifier" && !env.lookup(cond.text)?.hasConst) return undefined;
    const v = this.expr(cond, env);
    return v.hasConst ? Boolean(v.c) : undefined;
  }

  member(obj: Val, attr: string, node: Node, subscript = false): Val {
    const modelled = pyMemberModel(this, obj, attr, node, subscript);
    if (modelled) return modelled;
    if (obj.kind === "module" && obj.path && !subscript) {
      const v: Val = { flows: [], kind: "module", path: `${obj.path}.${attr}` };
      return pyImportedValue(v) ?? v;
    }
    return field(obj, attr);
  }

  // ---- calls -------------------------------------------------------------------------------------

  private call(n: Node, env: Env): Val {
    const fnNode = n.childForFieldName("function");
    if (!fnNode) return EMPTY;
    let recv: Val | undefined;
    let method: string;
    let callee: Val;
    if (fnNode.type === "attribute") {
      recv = this.expr(fnNode.childForFieldName("object")!, env);
      method = fnNode.childForFieldName("attribute")?.text ?? "";
      callee = this.member(recv, method, fnNode);
    } else {
      callee = this.expr(fnNode, env);
      method = fnNode.type === "identifier" ? fnNode.text : "";
    }
    const argsNode = n.childForFieldName("arguments");
    const argNodes: Node[] = [];
    const args: Val[] = [];
    const kwargs = new Map<string, Val>();
    const kwargNodes = new Map<string, Node>();
    for (const a of argsNode?.type === "argument_list" ? argsNode.namedChildren : []) {
      if (!a || a.type === "comment") continue;
      if (a.type === "keyword_argument") {
        const name = a.childForFieldName("name")?.text ?? "";
        const value = a.childForFieldName("value");
        if (value) {
          kwargs.set(name, this.expr(value, env));
          kwargNodes.set(name, value);
        }
      } else if (a.type === "dictionary_splat") {
        const v = this.expr(a.namedChildren[0]!, env);
        for (const [k, fv] of v.fields ?? []) kwargs.set(k, fv);
        if (v.flows.length || v.elems) kwargs.set("**", join({ flows: v.flows }, v.elems));
      } else if (a.type === "list_splat") {
        const v = this.expr(a.namedChildren[0]!, env);
        args.push(element(v));
        argNodes.push(a);
      } else {
        argNodes.push(a);
        args.push(this.expr(a, env));
      }
    }
    // Generator argument: `"".join(x for x in y)`.
    if (argsNode?.type === "generator_expression") {
      argNodes.push(argsNode);
      args.push(this.expr(argsNode, env));
    }
    const site: PyCall = {
      node: n,
      fnNode,
      callee: calleeName(callee, fnNode),
      method,
      recv,
      args,
      argNodes,
      kwargs,
      kwargNodes,
      env,
    };
    // getattr(os, "system"): reflection with a constant name is a member access.
    if (site.callee === "getattr" && args[1]?.hasConst && args[0]) return this.member(args[0], String(args[1].c), n);
    const modelled = pyCallModel(this, site);
    if (modelled !== undefined) {
      this.callbacks(site);
      return modelled.result ?? EMPTY;
    }
    if (callee.fn) {
      const stepped = args.map((a) => addStep(a, { line: line(n), what: `${snippet(fnNode, 30)}(…)` }));
      const steppedKw = new Map(
        [...kwargs].map(([k, v]) => [k, addStep(v, { line: line(n), what: `${snippet(fnNode, 30)}(…)` })]),
      );
      if (callee.kind === "class") {
        const inst = callee.fn.self ?? { flows: [], fields: new Map() };
        this.invoke(callee.fn, [inst, ...stepped], false, steppedKw);
        return inst;
      }
      const self = callee.fn.self;
      const isMethod = !!self && paramList(callee.fn.node)[0]?.name === "self";
      return this.invoke(callee.fn, isMethod ? [self!, ...stepped] : stepped, false, steppedKw);
    }
    if (callee.kind === "class") {
      const clsNode = callee.meta?.node;
      void clsNode;
      return { flows: [], fields: new Map(callee.fields) };
    }
    if (callee.kind === "local-import" && callee.path) {
      const [specifier, name] = callee.path.split("#") as [string, string];
      this.importedCalls.push({ specifier, name, args, node: n });
    }
    if (recv?.kind === "local-import" && recv.path) {
      // `from . import shell; shell.ping(x)` calls ping in the module .shell
      const [mod, imported] = recv.path.split("#") as [string, string];
      const specifier = `${mod}${mod.endsWith(".") ? "" : "."}${imported}`;
      this.importedCalls.push({ specifier, name: method, args, node: n });
    }
    if (callee.kind === "module" && callee.path?.includes(".") && args.some((a) => deepFlows(a).length)) {
      const dot = callee.path.lastIndexOf(".");
      this.importedCalls.push({
        specifier: callee.path.slice(0, dot),
        name: callee.path.slice(dot + 1),
        args,
        node: n,
      });
    }
    this.callbacks(site);
    return passThrough(site);
  }

  private callbacks(site: PyCall): void {
    for (const a of [...site.args, ...site.kwargs.values()]) {
      if (!a.fn || this.analysed.has(a.fn.node.id)) continue;
      this.invoke(a.fn, site.recv ? [element(site.recv)] : []);
    }
  }
}

function passThrough(site: PyCall): Val {
  const parts: Val[] = [];
  if (site.recv && site.recv.kind !== "module") parts.push(site.recv);
  for (const a of site.args) if (!a.fn) parts.push(a);
  for (const v of site.kwargs.values()) if (!v.fn) parts.push(v);
  const flows = parts.flatMap((p) => deepFlows(p, 2));
  if (!flows.length) return EMPTY;
  return stringify({ flows: flows.slice(0, 6) });
}

// ---- helpers -------------------------------------------------------------------------------------

function calleeName(callee: Val, node: Node): string {
  if (callee.kind === "module" && callee.path) return callee.path;
  if (callee.path) return callee.path;
  return node.text.replace(/\s+/g, "");
}

/** Imported names that are values, not modules: `from flask import request` is the request. */
function pyImportedValue(v: Val): Val | undefined {
  switch (v.path) {
    case "flask.request":
      return { flows: [], kind: "flask-request" };
    case "flask.session":
      return { flows: [], kind: "session", fields: new Map() };
    case "sys.argv":
      return { flows: [], elems: { ...sourceArgv() } };
    case "os.environ":
      return { flows: [], kind: "environ" };
  }
  return undefined;
}

function sourceArgv(): Val {
  return {
    flows: [
      {
        origin: "argv",
        source: "sys.argv",
        steps: [{ line: 0, what: "sys.argv" }],
        cleaned: new Set(),
        structured: false,
        secret: false,
      },
    ],
  };
}

function builtin(name: string): Val {
  return { flows: [], kind: "module", path: name };
}

export function paramList(fn: Node): Param[] {
  const params = fn.childForFieldName("parameters");
  const out: Param[] = [];
  for (const p of params?.namedChildren ?? []) {
    if (!p) continue;
    switch (p.type) {
      case "identifier":
        out.push({ name: p.text, node: p, kind: "plain" });
        break;
      case "typed_parameter": {
        const id = p.namedChildren.find(
          (c) => c?.type === "identifier" || c?.type === "list_splat_pattern" || c?.type === "dictionary_splat_pattern",
        );
        const type = p.childForFieldName("type") ?? undefined;
        if (id?.type === "identifier") out.push({ name: id.text, node: p, kind: "plain", ...(type ? { type } : {}) });
        else if (id)
          out.push({
            name: id.namedChildren[0]?.text ?? "",
            node: p,
            kind: id.type === "list_splat_pattern" ? "splat" : "kwsplat",
          });
        break;
      }
      case "default_parameter":
      case "typed_default_parameter": {
        const name = p.childForFieldName("name")?.text ?? "";
        const type = p.childForFieldName("type") ?? undefined;
        const dflt = p.childForFieldName("value") ?? undefined;
        out.push({ name, node: p, kind: "plain", ...(type ? { type } : {}), ...(dflt ? { default: dflt } : {}) });
        break;
      }
      case "list_splat_pattern":
        out.push({ name: p.namedChildren[0]?.text ?? "", node: p, kind: "splat" });
        break;
      case "dictionary_splat_pattern":
        out.push({ name: p.namedChildren[0]?.text ?? "", node: p, kind: "kwsplat" });
        break;
    }
  }
  return out;
}

export function decoratorsOf(fn: Node): Node[] {
  const parent = fn.parent;
  if (parent?.type !== "decorated_definition") return [];
  return parent.namedChildren.filter((c): c is Node => c?.type === "decorator");
}

function classOf(fn: Node): Node | null {
  let n: Node | null = fn.parent;
  while (n && n.type !== "class_definition") {
    if (n.type === "function_definition" || n.type === "module") return null;
    n = n.parent;
  }
  return n;
}

function allFunctions(root: Node): Node[] {
  const out: Node[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === "function_definition") out.push(n);
    for (let i = n.namedChildCount - 1; i >= 0; i--) {
      const c = n.namedChild(i);
      if (c) stack.push(c);
    }
  }
  return out;
}
