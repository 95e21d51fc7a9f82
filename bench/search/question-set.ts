/**
 * The natural-language question sets (issue 31): questions written the way people ask them ("how do
 * I …", "where is …"; questions/python.json, questions/javascript.json, written for this bench, not
 * taken from any benchmark) paired with the functions that answer them in real code nobody here
 * wrote — Python's standard library as Debian installs it, and JavaScript packages under
 * node_modules. Unlike the doc-comment sets (code-set.ts, python-set.ts), the documents are the
 * functions as they are written — docstrings, comments and real names kept — and every function of
 * the source is one, so the corpus is what a user's search box would hold:
 * `<module path>/<qualified name>.<ext>` (`shutil/copy2.py`, `express/lib/response/res.cookie.js`).
 * A question may have several right answers (`copy2`, or the `copy` it calls); any of them counts.
 * A gold that no longer resolves (another package version) fails the build loudly.
 *
 * The nonsense set (questions/nonsense.json) is queries no code or aeronautics abstract answers —
 * everyday questions and keyboard noise — for the "no good match" decision.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse, type Node } from "../../server/codebase/treesitter.ts";
import { CODE_SET_SOURCES, listJs, packageRoot } from "./code-set.ts";
import { listPy, PYTHON_STDLIB, pythonVersion } from "./python-set.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Functions longer than this are left out (generated tables, huge dispatchers); 1-liners too. */
const MIN_LINES = 2;
const MAX_LINES = 200;

/** The packages the JavaScript questions are about, beside the doc-comment set's as distractors. */
export const QUESTION_JS_SOURCES = [
  "express/lib",
  "cookie",
  "cookie-signature",
  "mime-types",
  "content-type",
  "on-finished",
  "escape-html",
  "ms",
  "dotenv/lib",
  "negotiator/lib",
  "qs/lib",
  "debug/src",
  "semver/functions",
  "semver/ranges",
  "semver/classes",
  ...CODE_SET_SOURCES.filter((s) => s !== "semver"),
];

export interface QuestionDoc {
  id: string;
  text: string;
}
export interface QuestionSet {
  docs: QuestionDoc[];
  queries: { query: string; gold: string[] }[];
  packages: Record<string, string>;
}

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(path.join(HERE, "questions", name), "utf8")) as T;
}

export function nonsenseQueries(): string[] {
  return readJson<string[]>("nonsense.json");
}

/** A function's source from the start of its line (indentation kept), and its line count. */
function sourceOf(n: Node, source: string): string {
  return source.slice(source.lastIndexOf("\n", n.startIndex - 1) + 1, n.endIndex);
}

const nameOf = (n: Node | null | undefined) => n?.text ?? null;

/** Python: every function and method, named by its enclosing classes and functions (`Random.choice`). */
function* pythonFunctions(root: Node, source: string): Generator<{ name: string; text: string }> {
  const visit = function* (n: Node, prefix: string): Generator<{ name: string; text: string }> {
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (c.type === "function_definition") {
        const name = prefix + nameOf(c.childForFieldName("name"));
        yield { name, text: sourceOf(c, source) };
        yield* visit(c, `${name}.`);
      } else if (c.type === "class_definition") yield* visit(c, `${prefix}${nameOf(c.childForFieldName("name"))}.`);
      else yield* visit(c, prefix);
    }
  };
  yield* visit(root, "");
}

const JS_FUNCTIONS = new Set([
  "function_expression",
  "arrow_function",
  "generator_function",
  "function",
  "function_declaration",
  "generator_function_declaration",
  "method_definition",
]);

/** The name a JavaScript function is known by: its declaration, `res.cookie = function`, `const f = () =>`, a method. */
function jsName(fn: Node): string | null {
  if (
    fn.type === "function_declaration" ||
    fn.type === "generator_function_declaration" ||
    fn.type === "method_definition"
  )
    return nameOf(fn.childForFieldName("name"));
  const p = fn.parent;
  if (!p) return null;
  if (p.type === "variable_declarator") return nameOf(p.childForFieldName("name"));
  if (p.type === "assignment_expression") return nameOf(p.childForFieldName("left"));
  if (p.type === "pair") return nameOf(p.childForFieldName("key"));
  return null;
}

/** A name usable in a file path: `"key"` unquoted; computed keys and odd names become the line. */
function pathName(name: string, fn: Node): string {
  const plain = name.replace(/^["']|["']$/g, "");
  return /^[\w$.#]{1,100}$/.test(plain) ? plain : `L${fn.startPosition.row + 1}`;
}

/** JavaScript: every named function, method (`WebSocket.close`) and nested function (`setup.enable`). */
function* jsFunctions(root: Node, source: string): Generator<{ name: string; text: string }> {
  const visit = function* (n: Node, prefix: string): Generator<{ name: string; text: string }> {
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (JS_FUNCTIONS.has(c.type)) {
        const named = jsName(c);
        const own = named && pathName(named, c);
        if (own) {
          const name = prefix + own;
          yield { name, text: sourceOf(c, source) };
          yield* visit(c, `${name}.`);
          continue;
        }
      } else if (c.type === "class_declaration" || c.type === "class") {
        const cls =
          nameOf(c.childForFieldName("name")) ?? (c.parent?.type === "variable_declarator" ? jsName(c) : null);
        if (cls) {
          yield* visit(c, `${prefix}${cls}.`);
          continue;
        }
      }
      yield* visit(c, prefix);
    }
  };
  yield* visit(root, "");
}

/** Documents (one per function, identical bodies kept once) and the questions with their golds resolved. */
function assemble(
  found: { origin: string; file: string; text: string }[],
  questions: [string, string[]][],
  ext: string,
): Omit<QuestionSet, "packages"> {
  const docs: QuestionDoc[] = [];
  const byOrigin = new Map<string, string[]>();
  const seenText = new Set<string>();
  const seenId = new Set<string>();
  for (const f of found) {
    const lines = f.text.split("\n").length;
    if (lines < MIN_LINES || lines > MAX_LINES || seenText.has(f.text)) continue;
    seenText.add(f.text);
    let id = `${f.file}.${ext}`;
    for (let i = 2; seenId.has(id); i++) id = `${f.file}~${i}.${ext}`;
    seenId.add(id);
    docs.push({ id, text: f.text });
    byOrigin.set(f.origin, [...(byOrigin.get(f.origin) ?? []), id]);
  }
  const queries = questions.map(([query, golds]) => {
    const gold = golds.flatMap((g) => {
      const ids = byOrigin.get(g);
      if (!ids) throw new Error(`question set: "${query}" names ${g}, which is not a function of the corpus`);
      return ids;
    });
    return { query, gold };
  });
  return { docs, queries };
}

export async function buildPythonQuestions(root = PYTHON_STDLIB): Promise<QuestionSet> {
  const found: { origin: string; file: string; text: string }[] = [];
  for (const file of listPy(root)) {
    const source = readFileSync(file, "utf8");
    const { tree } = await parse("python", source);
    if (!tree) continue;
    try {
      const rel = path.relative(root, file);
      for (const f of pythonFunctions(tree.rootNode, source))
        found.push({ origin: `${rel}:${f.name}`, file: `${rel.replace(/\.py$/, "")}/${f.name}`, text: f.text });
    } finally {
      tree.delete();
    }
  }
  const set = assemble(found, readJson("python.json"), "py");
  return { ...set, packages: { "python3.11-stdlib": pythonVersion(root) } };
}

export async function buildJsQuestions(sources = QUESTION_JS_SOURCES): Promise<QuestionSet> {
  const found: { origin: string; file: string; text: string }[] = [];
  const packages: Record<string, string> = {};
  for (const spec of sources) {
    const pkg = packageRoot(spec);
    const dir = path.join(
      pkg.root,
      spec
        .split("/")
        .slice(pkg.name.includes("/") ? 2 : 1)
        .join("/"),
    );
    packages[pkg.name] = pkg.version;
    for (const file of listJs(dir)) {
      const source = readFileSync(file, "utf8");
      const { tree } = await parse("javascript", source);
      if (!tree) continue;
      try {
        const rel = `${pkg.name}/${path.relative(pkg.root, file)}`;
        for (const f of jsFunctions(tree.rootNode, source))
          found.push({ origin: `${rel}:${f.name}`, file: `${rel.replace(/\.(c|m)?js$/, "")}/${f.name}`, text: f.text });
      } finally {
        tree.delete();
      }
    }
  }
  return { ...assemble(found, readJson("javascript.json"), "js"), packages };
}
