/**
 * The second code set, built the CodeSearchNet way from Python's standard library as Debian installs
 * it (/usr/lib/python3.11, package libpython3.11-stdlib; licence: the PSF License Agreement, in
 * LICENSE.txt beside it — see bench/search/README.md). Each documented function or method gives one
 * pair: the query is the first sentence of its docstring, the document is the function with the
 * docstring and every comment removed. Tests, demos and vendored trees are left out. Same sampling
 * and de-duplication as the JavaScript set (code-set.ts: pairsToSet).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse, type Node } from "../../server/codebase/treesitter.ts";
import {
  firstSentenceOf,
  MAX_LINES,
  MIN_LINES,
  pairsToSet,
  type CodeSet,
  type DocumentedFunction,
} from "./code-set.ts";

export const PYTHON_STDLIB = "/usr/lib/python3.11";
/** Tests and data, and the parts of the standard library's folder that Debian installs from other
 * packages than libpython3.11-stdlib (tkinter comes with python3-tk, which pulls in ~250 more
 * documented functions): the set is the same whatever else a machine has installed. */
const SKIP_DIRS = new Set([
  "test",
  "tests",
  "idle_test",
  "site-packages",
  "dist-packages",
  "__pycache__",
  "pydoc_data",
  "ensurepip",
  "turtledemo",
  "tkinter",
]);

export function listPy(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && !SKIP_DIRS.has(e.name) && !e.name.startsWith("config-")) visit(p);
      else if (e.isFile() && e.name.endsWith(".py") && !/^test_/.test(e.name) && statSync(p).size < 512 * 1024)
        out.push(p);
    }
  };
  visit(dir);
  return out;
}

/** The docstring node of a function (its body's first statement when that is a string), or null. */
function docstringOf(fn: Node): Node | null {
  const body = fn.childForFieldName("body");
  const first = body?.namedChildren[0];
  if (first?.type !== "expression_statement") return null;
  const s = first.namedChildren[0];
  return s?.type === "string" ? first : null;
}

/** The docstring's text lines, quotes and common indentation removed. */
function docstringLines(node: Node): string[] {
  const raw = node.text.replace(/^[rRuUbB]*("""|'''|"|')/, "").replace(/("""|'''|"|')$/, "");
  return raw.split("\n").map((l) => l.trim());
}

function withoutDoc(fn: Node, doc: Node, source: string): string {
  const start = source.lastIndexOf("\n", fn.startIndex - 1) + 1;
  const cuts = [
    [doc.startIndex, doc.endIndex] as const,
    ...fn.descendantsOfType("comment").map((c) => [c!.startIndex, c!.endIndex] as const),
  ].sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = start;
  for (const [s, e] of cuts) {
    if (s < at) continue;
    out += source.slice(at, s);
    at = e;
  }
  out += source.slice(at, fn.endIndex);
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
    if (n.type !== "function_definition") continue;
    const doc = docstringOf(n);
    if (!doc) continue;
    const query = firstSentenceOf(docstringLines(doc));
    // "execle(file, *args, env)", "is_package(fullname) -> bool": a signature, not a summary.
    if (!query || /^[\w.]+\(/.test(query)) continue;
    const text = withoutDoc(n, doc, source);
    const lines = text.split("\n").length;
    // The signature alone (a docstring-only stub) is no document.
    if (lines < MIN_LINES || lines > MAX_LINES) continue;
    yield { line: n.startPosition.row + 1, query, text };
  }
}

/** Every function (3–80 lines) with a summary sentence in its docstring in the .py files under
 * `root`, origins relative to `originRoot` (also the training data of scripts/train-code-terms.ts). */
export async function documentedPyFunctions(root: string, originRoot = root): Promise<DocumentedFunction[]> {
  const found: DocumentedFunction[] = [];
  for (const file of listPy(root)) {
    const source = readFileSync(file, "utf8");
    const { tree } = await parse("python", source);
    if (!tree) continue;
    try {
      const rel = path.relative(originRoot, file);
      for (const p of pairsInTree(tree.rootNode, source))
        found.push({ origin: `${rel}:${p.line}`, query: p.query, text: p.text });
    } finally {
      tree.delete();
    }
  }
  return found;
}

export async function buildPythonSet(queryCount: number, root = PYTHON_STDLIB): Promise<CodeSet> {
  if (!existsSync(path.join(root, "os.py")))
    throw new Error(`Python's standard library is not at ${root}: apt-get install libpython3.11-stdlib`);
  const found = await documentedPyFunctions(root);
  return { ...pairsToSet(found, queryCount, "py"), packages: { "python3.11-stdlib": pythonVersion(root) } };
}

export function pythonVersion(root: string): string {
  try {
    const status = readFileSync("/var/lib/dpkg/status", "utf8");
    const block = status.split("\n\n").find((b) => /^Package: libpython3\.11-stdlib$/m.test(b));
    const v = block && /^Version: (.+)$/m.exec(block);
    if (v) return v[1]!;
  } catch {
    /* not Debian */
  }
  return path.basename(root);
}
