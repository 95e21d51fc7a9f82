/**
 * Best-effort, intra-procedural "does request input reach this expression?". Sources are recognised
 * by their text (req.query…, request.args…, r.FormValue(…), request.getParameter(…), route
 * parameters); taint then follows assignments inside the enclosing function, a few rounds deep. It is
 * a heuristic on purpose: cheap enough to run on every file at ingest, precise enough to rank
 * findings. Sanitising calls (basename, parseInt, shlex.quote, …) cut the flow.
 */
import { getQuery, type GrammarId, type Node } from "../../treesitter.ts";
import type { RuleContext } from "./context.ts";

/** How an expression relates to request input. */
export type Flow = "source" | "tainted" | "dynamic" | "constant";

const SOURCES: Record<"js" | "python" | "go" | "java" | "rust", RegExp> = {
  js: /\b(?:req|request|ctx\.request|ctx)\s*\.\s*(?:query|body|params|param\s*\(|headers|cookies|signedCookies|files?|originalUrl|url|get\s*\()|\bevent\s*\.\s*(?:body|queryStringParameters|pathParameters|headers)\b|\b(?:searchParams|formData)\s*\.\s*get(?:All)?\s*\(|\blocation\s*\.\s*(?:search|hash)\b/,
  python:
    /\brequest\s*\.\s*(?:args|form|values|json|data|files|cookies|headers|GET|POST|body|query_params|path_params|get_json\s*\(|get_data\s*\()/,
  go: /\b(?:r|req|request)\s*\.\s*(?:URL\s*\.\s*(?:Query|Path|RawQuery)|FormValue|PostFormValue|Form|PostForm|Header|Body|Cookie)\b|\b(?:c|ctx)\s*\.\s*(?:Query|DefaultQuery|Param|PostForm|FormValue|GetHeader|QueryParam|Params)\s*\(|\bmux\s*\.\s*Vars\s*\(/,
  java: /\b(?:request|req|httpRequest|servletRequest)\s*\.\s*get(?:Parameter|ParameterValues|Header|QueryString|Cookies|InputStream|Reader|PathInfo|RequestURI)\s*\(/,
  rust: /\b(?:req|request)\s*\.\s*(?:query|uri|body|headers)\b|\b(?:Query|Path|Form|Json)\s*\(/,
};

/** Calls whose result is no longer attacker-shaped (arguments may nest one level of parentheses). */
const SANITIZERS =
  /\b(?:path\s*\.\s*basename|basename|parseInt|parseFloat|Number|encodeURIComponent|shlex\s*\.\s*quote|quote|shellescape|int|float|filepath\s*\.\s*Base|strconv\s*\.\s*Atoi|Integer\s*\.\s*parseInt|Long\s*\.\s*parseLong|secure_filename|escape_string|escape)\s*\((?:[^()]|\([^()]*\))*\)/g;

const FUNCTION_TYPES: Record<GrammarId, Set<string>> = {
  javascript: new Set([
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
  ]),
  typescript: new Set([
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
  ]),
  tsx: new Set([
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
  ]),
  python: new Set(["function_definition", "lambda"]),
  go: new Set(["function_declaration", "method_declaration", "func_literal"]),
  java: new Set(["method_declaration", "constructor_declaration", "lambda_expression"]),
  rust: new Set(["function_item", "closure_expression"]),
};

const JS_ASSIGN = `
(variable_declarator name: (_) @lhs value: (_) @rhs)
(assignment_expression left: (_) @lhs right: (_) @rhs)
(augmented_assignment_expression left: (_) @lhs right: (_) @rhs)
`;
const ASSIGNMENTS: Record<GrammarId, string> = {
  javascript: JS_ASSIGN,
  typescript: JS_ASSIGN,
  tsx: JS_ASSIGN,
  python: `
(assignment left: (_) @lhs right: (_) @rhs)
(augmented_assignment left: (_) @lhs right: (_) @rhs)
`,
  go: `
(short_var_declaration left: (_) @lhs right: (_) @rhs)
(assignment_statement left: (_) @lhs right: (_) @rhs)
(var_spec name: (_) @lhs value: (_) @rhs)
`,
  java: `
(variable_declarator name: (_) @lhs value: (_) @rhs)
(assignment_expression left: (_) @lhs right: (_) @rhs)
`,
  rust: `(let_declaration pattern: (_) @lhs value: (_) @rhs)`,
};

const STRING_TYPES = new Set([
  "string",
  "template_string",
  "interpreted_string_literal",
  "raw_string_literal",
  "string_literal",
  "concatenated_string",
  "text_block",
]);
const LITERAL_TYPES = new Set([
  "number",
  "integer",
  "float",
  "int_literal",
  "float_literal",
  "decimal_integer_literal",
  "true",
  "false",
  "null",
  "undefined",
  "none",
  "nil",
  "None",
  "True",
  "False",
  "boolean_literal",
  "null_literal",
]);
const INTERPOLATION_TYPES = new Set(["template_substitution", "interpolation"]);

const MAX_TEXT = 4000;
const IDENT = /[A-Za-z_$][\w$]*/g;

function family(grammar: GrammarId): keyof typeof SOURCES {
  return grammar === "typescript" || grammar === "tsx" || grammar === "javascript" ? "js" : grammar;
}

interface Assignment {
  lhs: string[];
  rhs: Node;
  at: number;
}

/** Per-function analysis, computed lazily the first time a sink in that function asks. */
interface Scope {
  tainted: Set<string>;
  assignments: Assignment[];
}

export class FlowAnalysis {
  private scopes = new Map<number, Scope>();
  private source: RegExp;

  constructor(private ctx: RuleContext) {
    this.source = SOURCES[family(ctx.grammar!)];
  }

  /** Does text mention request input directly? */
  isSourceText(text: string): boolean {
    return this.source.test(stripSanitized(text.slice(0, MAX_TEXT)));
  }

  async classify(node: Node): Promise<Flow> {
    const scope = await this.scopeOf(node);
    if (this.isConstant(node, scope, 0)) return "constant";
    // Words inside string literals are not code: "SELECT … WHERE id = $1" does not mention `id`.
    const text = stripSanitized(codeText(node));
    if (this.source.test(text)) return "source";
    if (mentions(text, scope.tainted)) return "tainted";
    return "dynamic";
  }

  /** A string assembled at run time (template with substitutions, concatenation, f-string, %, format). */
  async isBuiltString(node: Node): Promise<boolean> {
    const target = await this.resolveIdentifier(node);
    return isInterpolated(target);
  }

  /** The value an identifier was last assigned before `node` in its function, else the node itself. */
  async resolveIdentifier(node: Node): Promise<Node> {
    if (node.type !== "identifier") return node;
    const scope = await this.scopeOf(node);
    let best: Assignment | undefined;
    for (const a of scope.assignments)
      if (a.at < node.startIndex && a.lhs.includes(node.text) && (!best || a.at > best.at)) best = a;
    return best?.rhs ?? node;
  }

  private isConstant(node: Node, scope: Scope, depth: number): boolean {
    if (depth > 4) return false;
    if (LITERAL_TYPES.has(node.type)) return true;
    if (STRING_TYPES.has(node.type)) return !hasInterpolation(node);
    switch (node.type) {
      case "parenthesized_expression":
      case "binary_expression":
      case "binary_operator":
      case "array":
      case "list":
      case "tuple":
      case "expression_list":
        return node.namedChildren.every((c) => !c || c.type === "comment" || this.isConstant(c, scope, depth + 1));
      case "identifier": {
        if (/^[A-Z][A-Z0-9_]*$/.test(node.text)) return true;
        let best: Assignment | undefined;
        for (const a of scope.assignments)
          if (a.at < node.startIndex && a.lhs.includes(node.text) && (!best || a.at > best.at)) best = a;
        return best ? this.isConstant(best.rhs, scope, depth + 1) : false;
      }
    }
    return false;
  }

  private async scopeOf(node: Node): Promise<Scope> {
    const grammar = this.ctx.grammar!;
    const fnTypes = FUNCTION_TYPES[grammar];
    let fn: Node | null = node.parent;
    while (fn && !fnTypes.has(fn.type)) fn = fn.parent;
    const scopeNode = fn ?? this.ctx.tree!.rootNode;
    const cached = this.scopes.get(scopeNode.id);
    if (cached) return cached;

    const query = await getQuery(grammar, "flow-assignments", () => ASSIGNMENTS[grammar]);
    const assignments: Assignment[] = [];
    for (const m of query.matches(scopeNode)) {
      const lhs = m.captures.find((c) => c.name === "lhs")?.node;
      const rhs = m.captures.find((c) => c.name === "rhs")?.node;
      if (lhs && rhs) assignments.push({ lhs: assignedNames(lhs.text), rhs, at: rhs.startIndex });
    }
    const tainted = new Set<string>(fn ? routeParameters(grammar, fn) : []);
    // Propagate to a fixed point (bounded): x = req.body.y; cmd = "ls " + x; run(cmd).
    for (let round = 0; round < 4; round++) {
      let grew = false;
      for (const a of assignments) {
        if (a.lhs.every((n) => tainted.has(n))) continue;
        const text = stripSanitized(codeText(a.rhs));
        if (this.source.test(text) || mentions(text, tainted)) {
          for (const n of a.lhs)
            if (!tainted.has(n)) {
              tainted.add(n);
              grew = true;
            }
        }
      }
      if (!grew) break;
    }
    const scope = { tainted, assignments };
    this.scopes.set(scopeNode.id, scope);
    return scope;
  }
}

/** Literal parts of strings: their words are data, not identifiers. */
const LITERAL_CONTENT =
  /^(?:string_fragment|string_content|escape_sequence|raw_string_literal_content|interpreted_string_literal_content|multiline_string_fragment)$/;

/** An expression's text with string contents blanked (interpolations kept: they are code). */
function codeText(node: Node): string {
  const text = node.text;
  if (text.length > MAX_TEXT) return text.slice(0, MAX_TEXT);
  let out = "";
  let at = node.startIndex;
  const visit = (n: Node) => {
    if (LITERAL_CONTENT.test(n.type)) {
      out += text.slice(at - node.startIndex, n.startIndex - node.startIndex);
      at = n.endIndex;
      return;
    }
    for (const child of n.children) if (child) visit(child);
  };
  visit(node);
  return out + text.slice(at - node.startIndex);
}

function stripSanitized(text: string): string {
  return text.replace(SANITIZERS, "0");
}

/** Identifiers an assignment target binds: `{ a, b: c }` → a, c; `obj.x` → obj; `x, err` → x, err. */
function assignedNames(lhs: string): string[] {
  const names: string[] = [];
  const text = lhs.slice(0, 500).replace(/\b\w+\s*:(?!=)/g, " ");
  for (const m of text.matchAll(IDENT)) {
    const before = text[m.index - 1];
    if (before === ".") continue;
    names.push(m[0]);
  }
  return names;
}

function mentions(text: string, names: Set<string>): boolean {
  if (names.size === 0) return false;
  for (const m of text.matchAll(IDENT)) if (names.has(m[0]) && text[m.index - 1] !== ".") return true;
  return false;
}

function hasInterpolation(node: Node): boolean {
  for (const child of node.namedChildren) if (child && INTERPOLATION_TYPES.has(child.type)) return true;
  return false;
}

/** Built at run time from a template, a concatenation with a string, an f-string, % or format(). */
export function isInterpolated(node: Node): boolean {
  const t = node.type;
  if (t === "template_string" || t === "string") return hasInterpolation(node);
  if (t === "binary_expression" || t === "binary_operator") {
    const op = node.childForFieldName("operator")?.text ?? node.child(1)?.text;
    const left = node.childForFieldName("left");
    const right = node.childForFieldName("right");
    const stringy = (n: Node | null) => !!n && (STRING_TYPES.has(n.type) || isInterpolated(n));
    if (op === "+" && (stringy(left) || stringy(right))) return true;
    if (op === "%" && stringy(left)) return true;
    return false;
  }
  if (t === "call" || t === "call_expression" || t === "method_invocation" || t === "macro_invocation") {
    const text = node.text.slice(0, 300);
    return (
      /^(?:fmt\s*\.\s*Sprintf|String\s*\.\s*format|format!|util\s*\.\s*format)\b/.test(text) ||
      /^["'][^]*["']\s*\.\s*format\s*\(/.test(text)
    );
  }
  if (t === "parenthesized_expression") return node.namedChildren.some((c) => !!c && isInterpolated(c));
  return false;
}

/**
 * Parameters that are request input by construction: Flask/FastAPI view functions (decorated with a
 * route), Spring handler parameters annotated @RequestParam/@PathVariable/@RequestBody/@RequestHeader.
 */
function routeParameters(grammar: GrammarId, fn: Node): string[] {
  if (grammar === "python") {
    const decorated = fn.parent?.type === "decorated_definition" ? fn.parent : null;
    if (
      !decorated ||
      !/@\s*[\w.]+\s*\.\s*(?:route|get|post|put|delete|patch)\s*\(/.test(
        decorated.text.slice(0, fn.startIndex - decorated.startIndex),
      )
    )
      return [];
    const params = fn.childForFieldName("parameters");
    return params
      ? params.namedChildren
          .flatMap((p) => (p ? [(p.childForFieldName("name") ?? p).text.split(":")[0]!.trim()] : []))
          .filter((n) => n !== "self")
      : [];
  }
  if (grammar === "java") {
    const params = fn.childForFieldName("parameters");
    if (!params) return [];
    const out: string[] = [];
    for (const p of params.namedChildren) {
      if (
        p &&
        /@(?:RequestParam|PathVariable|RequestBody|RequestHeader|CookieValue|QueryParam|PathParam|FormParam)\b/.test(
          p.text,
        )
      ) {
        const name = p.childForFieldName("name")?.text;
        if (name) out.push(name);
      }
    }
    return out;
  }
  return [];
}
