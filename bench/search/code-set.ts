/**
 * A CodeSearchNet-style evaluation set built from documented JavaScript installed under node_modules
 * (code nobody here wrote, pinned by package-lock, so the set is the same on every machine with the
 * same lockfile). Each documented function gives one pair:
 *  - query = the first sentence of its JSDoc comment;
 *  - document = the function with every comment removed (the doc comment is the query's source, and
 *    inner comments would paraphrase it).
 * The corpus is every pair's document; queries are a deterministic sample (by a hash of file and
 * line, not by anything about the gold), one gold document each. Queries that occur twice (e.g.
 * "Creates a new instance.") are dropped: they have no single right answer.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse, type Node } from "../../server/codebase/treesitter.ts";

/** Packages with many JSDoc-commented functions in plain .js (not bundled or minified). */
export const CODE_SET_SOURCES = [
  "eslint/lib",
  "ws/lib",
  "engine.io/build",
  "socket.io/dist",
  "socket.io-parser/build",
  "picomatch/lib",
  "yaml/dist",
  "esquery/dist",
  "semver",
];

export interface CodeDoc {
  /** Neutral file name (`fn/00012.js`): no method sees the original path. */
  id: string;
  /** Where it came from, for the report only. */
  origin: string;
  text: string;
}

export interface CodeQuery {
  query: string;
  gold: string;
}

export interface CodeSet {
  docs: CodeDoc[];
  queries: CodeQuery[];
  packages: Record<string, string>;
}

export const MIN_LINES = 3;
export const MAX_LINES = 80;
const MIN_WORDS = 4;
const MAX_WORDS = 40;

export function packageRoot(spec: string): { root: string; name: string; version: string } {
  const [scopeOrName, maybeName] = spec.split("/");
  const name = scopeOrName!.startsWith("@") ? `${scopeOrName}/${maybeName}` : scopeOrName!;
  // Not require.resolve: an `exports` map may hide package.json.
  const pkgJson = path.join(process.cwd(), "node_modules", name, "package.json");
  const version = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  return { root: path.dirname(pkgJson), name, version };
}

export function listJs(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== "node_modules" && !e.name.startsWith(".")) visit(p);
      else if (e.isFile() && /\.(c|m)?js$/.test(e.name) && !/\.min\.js$/.test(e.name) && statSync(p).size < 512 * 1024)
        out.push(p);
    }
  };
  visit(dir);
  return out;
}

/** The first sentence of a JSDoc block, inline tags unwrapped; null when there is none worth asking. */
export function firstSentence(comment: string): string | null {
  if (!comment.startsWith("/**")) return null;
  const lines = comment
    .replace(/^\/\*\*+/, "")
    .replace(/\*+\/$/, "")
    .split("\n")
    .map((l) => l.replace(/^\s*\*?\s?/, ""));
  return firstSentenceOf(lines);
}

/** The first sentence of a doc comment's lines (up to a tag section `@…` or `:param`, first
 * paragraph only), or null when it is too short, too long or not prose. */
export function firstSentenceOf(lines: readonly string[]): string | null {
  const prose: string[] = [];
  for (const line of lines) {
    if (/^[@:]/.test(line.trim())) break; // the tag section (JSDoc @param, reST :param)
    if (!line.trim() && prose.length) break; // the first paragraph only
    if (line.trim()) prose.push(line.trim());
  }
  let text = prose
    .join(" ")
    .replace(/\{@\w+\s+([^}|\s]+)[^}]*\}/g, "$1")
    .replace(/`/g, "");
  const end = text.search(/\.(\s|$)/);
  if (end >= 0) text = text.slice(0, end);
  text = text.trim();
  const words = text.match(/\p{L}+/gu) ?? [];
  if (words.length < MIN_WORDS || words.length > MAX_WORDS) return null;
  if (/^(todo|fixme|eslint|istanbul|copyright|@)/i.test(text) || /https?:\/\//.test(text)) return null;
  return text;
}

const FUNCTION_TYPES = new Set(["function_declaration", "generator_function_declaration", "method_definition"]);
const FUNCTION_VALUES = new Set(["function_expression", "arrow_function", "generator_function", "function"]);

/** The definition a doc comment documents, if it is a function (declaration, method, `x = function`). */
function documentedFunction(next: Node | null): Node | null {
  if (!next) return null;
  let n: Node = next;
  if (n.type === "export_statement") {
    const d = n.childForFieldName("declaration");
    if (!d) return null;
    if (FUNCTION_TYPES.has(d.type)) return n;
    n = d;
  }
  if (FUNCTION_TYPES.has(n.type)) return next;
  if (n.type === "lexical_declaration" || n.type === "variable_declaration") {
    const decl = n.namedChildren.filter((c) => c?.type === "variable_declarator");
    const value = decl.length === 1 ? decl[0]!.childForFieldName("value") : null;
    return value && FUNCTION_VALUES.has(value.type) ? next : null;
  }
  if (n.type === "expression_statement") {
    const e = n.namedChildren[0];
    const right = e?.type === "assignment_expression" ? e.childForFieldName("right") : null;
    return right && FUNCTION_VALUES.has(right.type) ? next : null;
  }
  if (n.type === "pair") {
    const v = n.childForFieldName("value");
    return v && FUNCTION_VALUES.has(v.type) ? next : null;
  }
  return null;
}

/** The node's source lines with every comment inside it removed and emptied lines dropped. */
function withoutComments(node: Node, source: string): string {
  const start = source.lastIndexOf("\n", node.startIndex - 1) + 1; // from the line's start: keep indentation
  const cuts = node.descendantsOfType("comment").map((c) => [c!.startIndex, c!.endIndex] as const);
  let out = "";
  let at = start;
  for (const [s, e] of cuts) {
    out += source.slice(at, s);
    at = e;
  }
  out += source.slice(at, node.endIndex);
  return out
    .split("\n")
    .filter((l) => l.trim())
    .join("\n");
}

function* pairsInTree(root: Node, source: string): Generator<{ line: number; query: string; text: string }> {
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    for (const c of n.namedChildren) if (c) stack.push(c);
    if (n.type !== "comment") continue;
    const query = firstSentence(n.text);
    if (!query) continue;
    const fn = documentedFunction(n.nextNamedSibling);
    if (!fn || fn.startPosition.row - n.endPosition.row > 1) continue;
    const text = withoutComments(fn, source);
    const lines = text.split("\n").length;
    if (lines < MIN_LINES || lines > MAX_LINES) continue;
    yield { line: fn.startPosition.row + 1, query, text };
  }
}

const hashOf = (s: string) => createHash("sha1").update(s).digest("hex");

/** Build the set: every documented function is a document; `queries` of them (hash order) are asked. */
export async function buildCodeSet(queryCount: number, sources = CODE_SET_SOURCES): Promise<CodeSet> {
  const found: { origin: string; query: string; text: string }[] = [];
  const packages: Record<string, string> = {};
  for (const spec of sources) {
    let pkg;
    try {
      pkg = packageRoot(spec);
    } catch {
      continue; // not installed here: the set is smaller, and `packages` says which were used
    }
    const dir = path.join(
      pkg.root,
      spec
        .split("/")
        .slice(pkg.name.includes("/") ? 2 : 1)
        .join("/"),
    );
    packages[pkg.name] = pkg.version;
    found.push(...(await documentedJsFunctions(dir, pkg.root, pkg.name)));
  }
  return { ...pairsToSet(found, queryCount, "js"), packages };
}

export interface DocumentedFunction {
  /** `<package>/<file>:<line>`. */
  origin: string;
  /** The first sentence of its doc comment. */
  query: string;
  /** The function without its comments. */
  text: string;
}

/** Every JSDoc-documented function (3–80 lines) of the .js files under `dir`, a directory of the
 * package `name` installed at `root` (also the training data of scripts/train-code-terms.ts). */
export async function documentedJsFunctions(dir: string, root: string, name: string): Promise<DocumentedFunction[]> {
  const found: DocumentedFunction[] = [];
  for (const file of listJs(dir)) {
    const source = readFileSync(file, "utf8");
    const { tree } = await parse("javascript", source);
    if (!tree) continue;
    try {
      const rel = `${name}/${path.relative(root, file)}`;
      for (const p of pairsInTree(tree.rootNode, source))
        found.push({ origin: `${rel}:${p.line}`, query: p.query, text: p.text });
    } finally {
      tree.delete();
    }
  }
  return found;
}

/**
 * Documents and queries from mined (doc sentence, function) pairs. Identical documents (copied
 * helpers) would make "the" gold ambiguous: the first is kept. Queries are a sample in the order of a
 * hash of their origin; a sentence that documents two functions is no query (no single right answer).
 */
export function pairsToSet(
  found: readonly { origin: string; query: string; text: string }[],
  queryCount: number,
  ext: string,
): Omit<CodeSet, "packages"> {
  const seenText = new Set<string>();
  const unique = found.filter((f) => !seenText.has(f.text) && seenText.add(f.text));
  unique.sort((a, b) => (a.origin < b.origin ? -1 : 1));
  const docs = unique.map((f, i) => ({
    id: `fn/${String(i).padStart(5, "0")}.${ext}`,
    origin: f.origin,
    text: f.text,
  }));
  const queryCounts = new Map<string, number>();
  for (const f of unique) queryCounts.set(f.query.toLowerCase(), (queryCounts.get(f.query.toLowerCase()) ?? 0) + 1);
  const queries = unique
    .map((f, i) => ({ query: f.query, gold: docs[i]!.id, key: hashOf(f.origin) }))
    .filter((c) => queryCounts.get(c.query.toLowerCase()) === 1)
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .slice(0, queryCount)
    .map(({ query, gold }) => ({ query, gold }));
  return { docs, queries };
}
