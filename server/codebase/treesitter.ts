/**
 * The one place that loads tree-sitter: the web-tree-sitter runtime, the grammar .wasm files shipped by
 * the tree-sitter-* packages, and compiled queries. Both the symbol index and Argus's static rules go
 * through here, so a file is parsed once per pass and every thread (main or worker) keeps one copy of
 * each grammar. Everything is cached per thread: wasm objects cannot be shared across threads.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser, Query, type Tree } from "web-tree-sitter";

export type { Node, Query, QueryCapture, QueryMatch, Tree } from "web-tree-sitter";

export type GrammarId = "typescript" | "tsx" | "javascript" | "python" | "go" | "rust" | "java";

export const GRAMMARS: readonly GrammarId[] = ["typescript", "tsx", "javascript", "python", "go", "rust", "java"];

/** npm package and wasm file of each grammar. */
const WASM: Record<GrammarId, { pkg: string; file: string }> = {
  typescript: { pkg: "tree-sitter-typescript", file: "tree-sitter-typescript.wasm" },
  tsx: { pkg: "tree-sitter-typescript", file: "tree-sitter-tsx.wasm" },
  javascript: { pkg: "tree-sitter-javascript", file: "tree-sitter-javascript.wasm" },
  python: { pkg: "tree-sitter-python", file: "tree-sitter-python.wasm" },
  go: { pkg: "tree-sitter-go", file: "tree-sitter-go.wasm" },
  rust: { pkg: "tree-sitter-rust", file: "tree-sitter-rust.wasm" },
  java: { pkg: "tree-sitter-java", file: "tree-sitter-java.wasm" },
};

/**
 * Language ids (as the ingest's language detection names them) → grammar. JSX goes through the
 * JavaScript grammar, which parses JSX; anything not listed has no grammar and gets an outline.
 */
const LANGUAGE_TO_GRAMMAR: Record<string, GrammarId> = {
  typescript: "typescript",
  tsx: "tsx",
  javascript: "javascript",
  jsx: "javascript",
  python: "python",
  go: "go",
  rust: "rust",
  java: "java",
};

export function grammarFor(language: string): GrammarId | null {
  return LANGUAGE_TO_GRAMMAR[language] ?? null;
}

const require = createRequire(import.meta.url);

/** Directory of an installed package (resolved from this file, so it works from any cwd). */
export function packageDir(pkg: string): string {
  return path.dirname(require.resolve(`${pkg}/package.json`));
}

/** Text of a query file shipped by a grammar package, e.g. queries/tags.scm. */
export function packageQuery(pkg: string, name: string): string {
  return readFileSync(path.join(packageDir(pkg), "queries", name), "utf8");
}

let runtime: Promise<void> | undefined;
const languages = new Map<GrammarId, Promise<Language>>();
const parsers = new Map<GrammarId, Parser>();
const queries = new Map<string, Query>();

export function initRuntime(): Promise<void> {
  runtime ??= Parser.init();
  return runtime;
}

export function loadGrammar(id: GrammarId): Promise<Language> {
  let lang = languages.get(id);
  if (!lang) {
    const { pkg, file } = WASM[id];
    lang = initRuntime().then(() => Language.load(path.join(packageDir(pkg), file)));
    // A failed load must not poison the cache forever (e.g. a transient EMFILE).
    lang.catch(() => languages.delete(id));
    languages.set(id, lang);
  }
  return lang;
}

/**
 * A query compiled once per thread and grammar. `key` names the query (e.g. "tags"); `source` is only
 * read on the first call. Compilation errors propagate: queries are ours, so a bad one is a bug.
 */
export async function getQuery(id: GrammarId, key: string, source: () => string): Promise<Query> {
  const cacheKey = `${id}\0${key}`;
  let query = queries.get(cacheKey);
  if (!query) {
    query = new Query(await loadGrammar(id), source());
    queries.set(cacheKey, query);
  }
  return query;
}

export interface ParseOutcome {
  tree: Tree | null;
  /** Why there is no tree: the parse was cancelled by the time budget. */
  timedOut: boolean;
  /** Why there is no tree: the source was not handed to the parser (it would break it). */
  refused?: string;
}

/**
 * The Python grammar's scanner keeps its stack of indentation levels in a fixed buffer: at about 500
 * levels it overflows, returns an empty tree, and leaves the parser broken for every later file on
 * the thread (measured with tree-sitter-python 0.25: 500 levels parse, 520 give an ERROR tree, 600
 * break the next parse). Real code stays far below this limit.
 */
export const MAX_PYTHON_INDENT_LEVELS = 200;

/** How many indentation levels deep a Python source goes (tabs count to the next multiple of 8). */
export function pythonIndentLevels(source: string): number {
  const stack: number[] = [0];
  let deepest = 0;
  let at = 0;
  while (at < source.length) {
    let width = 0;
    let i = at;
    for (; i < source.length; i++) {
      const c = source.charCodeAt(i);
      if (c === 32) width++;
      else if (c === 9) width = (Math.floor(width / 8) + 1) * 8;
      else break;
    }
    const end = source.indexOf("\n", i);
    const next = end < 0 ? source.length : end + 1;
    const c = source.charCodeAt(i);
    // Blank and comment-only lines do not change the indentation.
    if (i < source.length && c !== 10 && c !== 13 && c !== 35) {
      while (width < stack[stack.length - 1]!) stack.pop();
      if (width > stack[stack.length - 1]!) stack.push(width);
      deepest = Math.max(deepest, stack.length - 1);
    }
    at = next;
  }
  return deepest;
}

/**
 * Parse with a wall-clock budget. tree-sitter recovers from syntax errors by itself (ERROR nodes), so a
 * null tree means the budget ran out, or the source was refused (see MAX_PYTHON_INDENT_LEVELS). The
 * caller must `tree.delete()` (wasm memory is not GC'd).
 */
export async function parse(id: GrammarId, source: string, timeoutMs = 10_000): Promise<ParseOutcome> {
  if (id === "python") {
    const levels = pythonIndentLevels(source);
    if (levels > MAX_PYTHON_INDENT_LEVELS)
      return {
        tree: null,
        timedOut: false,
        refused: `indentation nested ${levels} levels deep (more than ${MAX_PYTHON_INDENT_LEVELS}): not parsed`,
      };
  }
  let parser = parsers.get(id);
  if (!parser) {
    const language = await loadGrammar(id); // also initialises the runtime, which new Parser() needs
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(id, parser);
  }
  const deadline = performance.now() + timeoutMs;
  let timedOut = false;
  const tree = parser.parse(source, null, {
    progressCallback: () => {
      if (performance.now() > deadline) timedOut = true;
      return timedOut;
    },
  });
  // A cancelled parse leaves state behind that the next parse would resume from.
  if (!tree) parser.reset();
  // A parser that gave up on the whole file (an empty ERROR tree over a non-empty source) may be left
  // in a broken state: the next file gets a new one.
  else if (tree.rootNode.type === "ERROR" && tree.rootNode.childCount === 0 && source.trim()) {
    parser.delete();
    parsers.delete(id);
  }
  return { tree, timedOut: !tree && timedOut };
}
