/**
 * Definitions and references of one parsed file, from its grammar's tags query. The query gives
 * (name node, definition/reference node, kind); here we add what it does not: a finer kind from the
 * node type, the container (from range nesting), the signature line and whether the symbol is
 * exported.
 */
import { getQuery, type GrammarId, type Node } from "../treesitter.ts";
import { tagsQuerySource } from "./tags-queries.ts";
import type { Definition, Reference, ReferenceKind, SymbolKind } from "./types.ts";

const MAX_NAME = 200;
/** A query over a pathological tree stops here (and returns what it has) rather than hang a pass. */
export const QUERY_BUDGET_MICROS = 10_000_000;
const MAX_SIGNATURE = 240;

/** Capture `definition.<x>` → kind (a Map: a plain object would answer "constructor" itself). */
const DEFINITION_KINDS = new Map<string, SymbolKind>(
  (
    [
      "function",
      "method",
      "constructor",
      "class",
      "interface",
      "module",
      "constant",
      "variable",
      "macro",
      "type",
      "enum",
      "field",
    ] as const
  ).map((k) => [k, k]),
);

const REFERENCE_KINDS: Record<string, ReferenceKind> = {
  call: "call",
  class: "new",
  type: "type",
  implementation: "implementation",
};

/** When several patterns tag the same name (e.g. a top-level `const f = () => …` is both a function
 * and a constant), the more specific kind wins: lower rank. */
const RANK: Partial<Record<SymbolKind, number>> = {
  constant: 5,
  variable: 6,
  field: 6,
  function: 2,
  method: 1,
  constructor: 0,
};
const rank = (k: SymbolKind) => RANK[k] ?? 3;

/** Kinds that contain other symbols (so they become the container of what they enclose). */
const SCOPE_KINDS = new Set<SymbolKind>([
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "module",
  "impl",
  "function",
  "method",
  "constructor",
]);
const TYPE_SCOPES = new Set<SymbolKind>(["class", "struct", "interface", "trait", "enum", "impl"]);

interface Pending {
  def: Definition;
  nameId: number;
  start: number;
  end: number;
  isScope: boolean;
}

export interface Extracted {
  definitions: Definition[];
  references: Reference[];
}

export async function extractSymbols(grammar: GrammarId, root: Node, source: string): Promise<Extracted> {
  const query = await getQuery(grammar, "tags", () => {
    return tagsQuerySource(grammar);
  });

  const exportedIds = exportedNodeIds(grammar, root);
  const byNameNode = new Map<number, Pending>();
  const scopes: Pending[] = [];
  const refs: { ref: Reference; nameId: number }[] = [];
  const receivers = new Map<Definition, string | null>();

  for (const match of query.matches(root, { timeoutMicros: QUERY_BUDGET_MICROS })) {
    let nameNode: Node | undefined;
    let role: Node | undefined;
    let roleName = "";
    for (const c of match.captures) {
      if (c.name === "name") nameNode = c.node;
      else if (c.name.startsWith("definition.") || c.name.startsWith("reference.") || c.name.startsWith("scope.")) {
        role = c.node;
        roleName = c.name;
      }
    }
    if (!nameNode || !role) continue;
    const name = symbolName(nameNode);
    if (!name) continue;

    if (roleName.startsWith("reference.")) {
      const kind = REFERENCE_KINDS[roleName.slice(10)];
      if (kind)
        refs.push({
          ref: { name, kind, line: nameNode.startPosition.row + 1, column: nameNode.startPosition.column + 1 },
          nameId: nameNode.id,
        });
      continue;
    }
    if (roleName === "scope.impl") {
      const def = makeDefinition(grammar, role, implName(nameNode), "impl", source, exportedIds);
      scopes.push({ def, nameId: -1, start: role.startIndex, end: role.endIndex, isScope: true });
      continue;
    }
    const baseKind = DEFINITION_KINDS.get(roleName.slice(11));
    if (!baseKind) continue;
    const kind = refineKind(grammar, role, baseKind);
    const existing = byNameNode.get(nameNode.id);
    if (existing && rank(existing.def.kind) <= rank(kind)) continue;
    const def = makeDefinition(grammar, role, name, kind, source, exportedIds);
    if (grammar === "go" && role.type === "method_declaration") receivers.set(def, goReceiver(role));
    byNameNode.set(nameNode.id, {
      def,
      nameId: nameNode.id,
      start: role.startIndex,
      end: role.endIndex,
      isScope: SCOPE_KINDS.has(kind),
    });
  }

  const pending = [...byNameNode.values()];
  assignContainers([...pending, ...scopes]);
  for (const [def, receiver] of receivers) def.container = receiver;

  // A name that defines a symbol is not also a reference to it (Go tags every type_identifier).
  const references = refs.filter((r) => !byNameNode.has(r.nameId)).map((r) => r.ref);
  const definitions = pending.map((p) => p.def).sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
  return { definitions, references };
}

/** The identifier of a name capture: `a.b.C` → C, `Foo::new` → new; absurd names are dropped. */
function symbolName(node: Node): string | null {
  let n = node;
  if (n.namedChildCount > 0)
    n = n.childForFieldName("property") ?? n.childForFieldName("name") ?? n.childForFieldName("field") ?? n;
  const text = n.text;
  if (!text || text.length > MAX_NAME || /[\n\r]/.test(text)) return null;
  return text;
}

/** `impl<T> Foo<T>` / `impl Trait for Foo` → Foo. */
function implName(typeNode: Node): string {
  const base = typeNode.type === "generic_type" ? (typeNode.childForFieldName("type") ?? typeNode) : typeNode;
  return base.text.slice(0, MAX_NAME);
}

function refineKind(grammar: GrammarId, node: Node, kind: SymbolKind): SymbolKind {
  switch (node.type) {
    case "struct_item":
    case "union_item":
      return "struct";
    case "enum_item":
    case "enum_declaration":
      return "enum";
    case "type_item":
    case "type_alias":
      return "type";
    case "trait_item":
      return "trait";
    case "type_spec": {
      const t = node.childForFieldName("type")?.type;
      return t === "struct_type" ? "struct" : t === "interface_type" ? "interface" : "type";
    }
  }
  if (
    grammar === "python" &&
    kind === "constant" &&
    !/^[A-Z_][A-Z0-9_]*$/.test(node.childForFieldName("left")?.text ?? "")
  )
    return "variable";
  return kind;
}

function makeDefinition(
  grammar: GrammarId,
  node: Node,
  name: string,
  kind: SymbolKind,
  source: string,
  exportedIds: ReadonlySet<number> | null,
): Definition {
  return {
    name,
    kind,
    container: null,
    startLine: node.startPosition.row + 1,
    endLine: node.endPosition.row + 1,
    signature: lineAt(source, node.startIndex),
    exported: isExported(grammar, node, name, exportedIds),
  };
}

/** The trimmed source line containing `index`, capped (minified code has megabyte lines). */
function lineAt(source: string, index: number): string {
  const start = source.lastIndexOf("\n", index - 1) + 1;
  let end = source.indexOf("\n", index);
  if (end < 0) end = source.length;
  if (end - start > MAX_SIGNATURE * 4) end = Math.min(end, index + MAX_SIGNATURE);
  const line = source.slice(start, end).trim();
  return line.length > MAX_SIGNATURE ? `${line.slice(0, MAX_SIGNATURE)}…` : line;
}

/**
 * JavaScript / TypeScript: the nodes an `export` exports — the export statement, its declaration (or
 * default value) and that declaration's declarators. Found top-down: tree-sitter answers `parent` by
 * descending from the root, so walking up from each definition costs O(depth) each (seconds on a
 * file of thousands of nested functions).
 */
function exportedNodeIds(grammar: GrammarId, root: Node): Set<number> | null {
  if (grammar !== "javascript" && grammar !== "typescript" && grammar !== "tsx") return null;
  const ids = new Set<number>();
  // Exports sit at the top level or in namespace / module bodies: only those nodes are visited.
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "export_statement") {
        ids.add(child.id);
        for (const field of ["declaration", "value"]) {
          const exported = child.childForFieldName(field);
          if (!exported) continue;
          ids.add(exported.id);
          for (const c of exported.namedChildren) if (c) ids.add(c.id);
        }
      }
      if (EXPORT_CONTAINERS.has(child.type)) stack.push(child);
    }
  }
  return ids;
}

/** Nodes that can hold export statements, directly or further down (namespace N { export … }). */
const EXPORT_CONTAINERS = new Set([
  "export_statement",
  "expression_statement",
  "internal_module",
  "module",
  "ambient_declaration",
  "statement_block",
]);

function isExported(grammar: GrammarId, node: Node, name: string, exportedIds: ReadonlySet<number> | null): boolean {
  switch (grammar) {
    case "typescript":
    case "tsx":
    case "javascript":
      // The definition node may be a declarator inside a declaration inside the export.
      return exportedIds?.has(node.id) ?? false;
    case "go":
      return /^[A-Z]/.test(name);
    case "python":
      return !name.startsWith("_");
    case "rust":
      return node.firstNamedChild?.type === "visibility_modifier";
    case "java":
      return node.firstNamedChild?.type === "modifiers" && /\bpublic\b/.test(node.firstNamedChild.text);
  }
}

/**
 * Container = the innermost scope whose range encloses the definition. Sorting by (start asc,
 * end desc) makes every enclosing scope come before what it encloses, so one stack pass suffices.
 */
function assignContainers(items: Pending[]): void {
  items.sort((a, b) => a.start - b.start || b.end - a.end);
  const stack: Pending[] = [];
  for (const item of items) {
    while (stack.length && stack[stack.length - 1]!.end <= item.start) stack.pop();
    // A scope may not contain itself when two patterns tag the same node.
    let parent: Pending | undefined;
    for (let i = stack.length - 1; i >= 0 && !parent; i--)
      if (stack[i]!.end >= item.end && stack[i] !== item) parent = stack[i];
    if (parent) {
      item.def.container = parent.def.name;
      // A function directly inside a type (class body, impl, trait) is a method.
      if (item.def.kind === "function" && TYPE_SCOPES.has(parent.def.kind)) item.def.kind = "method";
    }
    // And a "method" directly in a module is a function (Rust tags every fn in a declaration_list,
    // which a `mod { }` body also is).
    if (item.def.kind === "method" && parent?.def.kind === "module") item.def.kind = "function";
    if (item.isScope) stack.push(item);
  }
}

/** Go: `func (s *Server) Start()` → Server. */
function goReceiver(method: Node): string | null {
  const receiver = method.childForFieldName("receiver")?.text;
  if (!receiver) return null;
  const m = /([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver);
  return m ? m[1]! : null;
}
