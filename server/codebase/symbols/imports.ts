/**
 * Import statements of a parsed file: the specifier as written, its kind and the imported names.
 * One query per grammar finds the statements; the names are read from each statement's children,
 * which is simpler than one pattern per import shape.
 */
import { getQuery, type GrammarId, type Node } from "../treesitter.ts";
import { QUERY_BUDGET_MICROS } from "./extract.ts";
import type { ImportKind, ImportRef } from "./types.ts";

/**
 * JS/TS: `import`/`export … from` are top-level statements, read straight from the root's children
 * (a second full-tree query cost ~10% of the pass). `require("x")` and `import("x")` can be anywhere:
 * this query runs only on files whose text contains them.
 */
const JS_CALL_IMPORTS = `
((call_expression function: (identifier) @fn arguments: (arguments . (string (string_fragment) @source))) @require (#eq? @fn "require"))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @source))) @dynamic
`;
const JS_CALL_IMPORT_TEXT = /\b(?:require|import)\s*\(/;

const QUERIES: Record<GrammarId, string> = {
  typescript: JS_CALL_IMPORTS,
  tsx: JS_CALL_IMPORTS,
  javascript: JS_CALL_IMPORTS,
  python: `
(import_statement) @import
(import_from_statement module_name: (_) @source) @from
`,
  go: `(import_spec path: (_) @source) @import`,
  rust: `(use_declaration argument: (_) @source) @use`,
  java: `(import_declaration) @import`,
};

const KIND_OF_CAPTURE: Record<string, ImportKind> = {
  import: "import",
  export: "export",
  require: "require",
  dynamic: "dynamic",
  from: "import",
  use: "use",
};

const isJs = (g: GrammarId) => g === "typescript" || g === "tsx" || g === "javascript";

export async function extractImports(grammar: GrammarId, root: Node, source: string): Promise<ImportRef[]> {
  const out: ImportRef[] = isJs(grammar) ? topLevelJsImports(root) : [];
  if (isJs(grammar) && !JS_CALL_IMPORT_TEXT.test(source)) return out;
  const query = await getQuery(grammar, "imports", () => QUERIES[grammar]);
  for (const match of query.matches(root, { timeoutMicros: QUERY_BUDGET_MICROS })) {
    let statement: Node | undefined;
    let source: Node | undefined;
    let kind: ImportKind = "import";
    for (const c of match.captures) {
      if (c.name === "source") source = c.node;
      else if (c.name !== "fn") {
        statement = c.node;
        kind = KIND_OF_CAPTURE[c.name] ?? "import";
      }
    }
    if (!statement) continue;
    const line = statement.startPosition.row + 1;
    switch (grammar) {
      case "python":
        if (source) out.push({ specifier: source.text, kind, line, names: pythonFromNames(statement) });
        else for (const spec of pythonImportModules(statement)) out.push({ specifier: spec, kind, line, names: [] });
        break;
      case "go":
        if (source) out.push({ specifier: unquote(source.text), kind, line, names: [] });
        break;
      case "java": {
        const m = /^import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;?/.exec(statement.text);
        if (m) out.push({ specifier: m[2]!, kind, line, names: [lastSegment(m[2]!, ".")] });
        break;
      }
      case "rust":
        if (source) {
          const spec = source.text.replace(/\s+/g, " ").replace(/\s*(::|,|\{|\})\s*/g, "$1");
          out.push({ specifier: spec, kind, line, names: rustUseNames(spec) });
        }
        break;
      default:
        if (source)
          out.push({
            specifier: source.text,
            kind,
            line,
            names: kind === "import" || kind === "export" ? jsImportNames(statement) : [],
          });
    }
  }
  return out;
}

/** `import … from "x"`, `import "x"`, `import x = require("x")`, `export … from "x"` at top level. */
function topLevelJsImports(root: Node): ImportRef[] {
  const out: ImportRef[] = [];
  for (const statement of root.namedChildren) {
    if (!statement || (statement.type !== "import_statement" && statement.type !== "export_statement")) continue;
    let source = statement.childForFieldName("source");
    if (!source && statement.type === "import_statement") {
      const clause = statement.namedChildren.find((c) => c?.type === "import_require_clause");
      source = clause?.childForFieldName("source") ?? null;
    }
    if (!source || source.type !== "string") continue;
    out.push({
      specifier: unquote(source.text),
      kind: statement.type === "import_statement" ? "import" : "export",
      line: statement.startPosition.row + 1,
      names: jsImportNames(statement),
    });
  }
  return out;
}

function unquote(text: string): string {
  return text.replace(/^["'`]|["'`]$/g, "");
}

function lastSegment(spec: string, sep: string): string {
  const parts = spec.split(sep);
  return parts[parts.length - 1] ?? spec;
}

/** `import a, { b as c, type d } from "x"` → default, b, d; `import * as ns` → "*". */
function jsImportNames(statement: Node): string[] {
  const names: string[] = [];
  const visit = (node: Node, depth: number) => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      switch (child.type) {
        case "import_clause":
        case "named_imports":
        case "export_clause":
          if (depth < 3) visit(child, depth + 1);
          break;
        case "identifier":
          if (node.type === "import_clause") names.push("default");
          break;
        case "namespace_import":
        case "namespace_export":
          names.push("*");
          break;
        case "import_specifier":
        case "export_specifier": {
          const name = child.childForFieldName("name");
          if (name) names.push(name.text);
          break;
        }
      }
    }
  };
  visit(statement, 0);
  return names;
}

/** The names a statement imports, not their aliases: `import a.b, c as d` → ["a.b", "c"]. */
function pythonImportModules(statement: Node): string[] {
  const out: string[] = [];
  for (const child of statement.childrenForFieldName("name")) {
    if (!child) continue;
    const name = child.type === "aliased_import" ? child.childForFieldName("name") : child;
    if (name) out.push(name.text);
  }
  return out;
}

/** `from x import a, b as c` → ["a", "b"]; `from x import *` → ["*"]. */
function pythonFromNames(statement: Node): string[] {
  const out = pythonImportModules(statement);
  if (out.length === 0 && statement.namedChildren.some((c) => c?.type === "wildcard_import")) out.push("*");
  return out;
}

/** `std::collections::HashMap` → HashMap; `a::{b, c::D}` → b, D; `x as y` → x. */
function rustUseNames(spec: string): string[] {
  const brace = /\{([^{}]*)\}\s*$/.exec(spec);
  const items = brace ? brace[1]!.split(",") : [spec];
  return items
    .map((item) => lastSegment(item.replace(/\s+as\s+\w+$/, "").trim(), "::"))
    .filter((n) => /^[A-Za-z_]\w*$/.test(n) && n !== "self");
}
