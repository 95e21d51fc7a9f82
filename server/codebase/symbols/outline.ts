/**
 * Line-based outline for languages without a grammar here: universal-ctags when it is on PATH (one
 * process for all such files, JSON output), otherwise a handful of regexes that catch the usual
 * declaration keywords. Either way only definitions, and never a failure: a broken ctags run degrades
 * to the regexes.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { findExecutable } from "../analysis/which.ts";
import type { Definition, SymbolKind } from "./types.ts";

const MAX_SIGNATURE = 240;

/** ctags kind names → ours (a Map: ctags kinds are input, and a plain object has "constructor"). */
const CTAGS_KINDS = new Map<string, SymbolKind>([
  ["function", "function"],
  ["func", "function"],
  ["subroutine", "function"],
  ["procedure", "function"],
  ["method", "method"],
  ["singletonMethod", "method"],
  ["constructor", "constructor"],
  ["class", "class"],
  ["struct", "struct"],
  ["union", "struct"],
  ["interface", "interface"],
  ["protocol", "interface"],
  ["trait", "trait"],
  ["enum", "enum"],
  ["typedef", "type"],
  ["type", "type"],
  ["alias", "type"],
  ["module", "module"],
  ["namespace", "module"],
  ["package", "module"],
  ["object", "class"],
  ["constant", "constant"],
  ["macro", "macro"],
  ["define", "macro"],
  ["variable", "variable"],
  ["var", "variable"],
  ["member", "field"],
  ["field", "field"],
  ["property", "field"],
]);

interface CtagsTag {
  _type?: string;
  name?: string;
  path?: string;
  pattern?: string;
  line?: number;
  end?: number;
  kind?: string;
  scope?: string;
}

let ctagsChecked: Promise<string | null> | undefined;

/** Path of a universal-ctags with JSON output, or null (exuberant ctags has neither). */
export function findCtags(): Promise<string | null> {
  ctagsChecked ??= (async () => {
    const bin = findExecutable("ctags");
    if (!bin) return null;
    const features = await run(bin, ["--list-features"], "", 10_000).catch(() => "");
    return /^json\b/m.test(features) ? bin : null;
  })();
  return ctagsChecked;
}

function run(bin: string, args: string[], input: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["pipe", "pipe", "ignore"], timeout: timeoutMs });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    child.stdin.on("error", () => {}); // a child that exits without reading must not crash us with EPIPE
    child.stdin.end(input);
  });
}

/**
 * Outline of many files with one ctags process, run from `root` with relative paths on stdin (so no
 * path reaches a command line and ctags never recurses). Streams its JSON lines: memory stays flat.
 */
export async function ctagsOutline(
  bin: string,
  root: string,
  paths: string[],
  timeoutMs = 120_000,
): Promise<Map<string, Definition[]>> {
  const out = new Map<string, Definition[]>();
  if (paths.length === 0) return out;
  const child = spawn(bin, ["--output-format=json", "--fields=+nKe", "--sort=no", "--links=no", "-f", "-", "-L", "-"], {
    cwd: root,
    stdio: ["pipe", "pipe", "ignore"],
    timeout: timeoutMs,
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  child.stdin.on("error", () => {}); // ctags exiting early must not crash us with EPIPE
  child.stdin.end(`${paths.join("\n")}\n`);
  for await (const line of createInterface({ input: child.stdout })) {
    let tag: CtagsTag;
    try {
      tag = JSON.parse(line) as CtagsTag;
    } catch {
      continue;
    }
    if (tag._type !== "tag" || !tag.name || !tag.path || !tag.line) continue;
    const kind = CTAGS_KINDS.get(tag.kind ?? "") ?? "other";
    const list = out.get(tag.path) ?? [];
    list.push({
      name: tag.name.slice(0, 200),
      kind,
      container: tag.scope ? (tag.scope.split(/\.|::/).pop() ?? null) : null,
      startLine: tag.line,
      endLine: tag.end && tag.end >= tag.line ? tag.end : tag.line,
      signature: signatureFromPattern(tag.pattern),
      exported: false,
    });
    out.set(tag.path, list);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`ctags exited with ${code ?? "a signal (timeout?)"}`);
  return out;
}

/** ctags' search pattern `/^  def foo(x)$/` → `def foo(x)`. */
function signatureFromPattern(pattern: string | undefined): string {
  if (!pattern) return "";
  const body = pattern
    .replace(/^\/\^?/, "")
    .replace(/\$?\/$/, "")
    .replace(/\\([/\\])/g, "$1")
    .trim();
  return body.length > MAX_SIGNATURE ? `${body.slice(0, MAX_SIGNATURE)}…` : body;
}

interface OutlineRule {
  re: RegExp;
  kind: (keyword: string) => SymbolKind;
}

const KEYWORD_KINDS: Record<string, SymbolKind> = {
  class: "class",
  struct: "struct",
  interface: "interface",
  protocol: "interface",
  trait: "trait",
  enum: "enum",
  module: "module",
  defmodule: "module",
  namespace: "module",
  object: "class",
  record: "class",
  impl: "impl",
};

const MODIFIERS = String.raw`(?:(?:export|public|private|protected|internal|static|final|abstract|sealed|open|partial|async|override|virtual|inline|suspend|data|unsafe|pub|extern)\s+)*`;

const RULES: OutlineRule[] = [
  {
    re: new RegExp(
      String.raw`^\s*${MODIFIERS}(class|struct|interface|protocol|trait|enum|module|defmodule|namespace|object|record)\s+([A-Za-z_][\w.:]*)`,
    ),
    kind: (k) => KEYWORD_KINDS[k] ?? "class",
  },
  {
    re: new RegExp(
      String.raw`^\s*${MODIFIERS}(def|defp|fn|func|function|fun|sub|proc)\s+(?:self\.)?([A-Za-z_][\w.:]*[!?]?)`,
    ),
    kind: () => "function",
  },
  // C-family function definitions: a return type, a name, parameters, and the body's brace on the line.
  {
    re: /^(?!\s*(?:if|for|while|switch|return|else|do|case|catch|using|typedef)\b)\s*[A-Za-z_][\w:<>,*&\s]*?[\s*&]()([A-Za-z_][\w:~]*)\s*\([^;]*\)\s*(?:const\s*)?(?:noexcept\s*)?\{\s*$/,
    kind: () => "function",
  },
  // Shell: `name() {` and `function name {`.
  { re: /^\s*()([A-Za-z_][\w-]*)\s*\(\)\s*\{/, kind: () => "function" },
];

const MAX_LINE = 400;

/** A flat outline from declaration keywords: no containers, no end lines (endLine = startLine). */
export function regexOutline(source: string): Definition[] {
  const out: Definition[] = [];
  let lineNo = 0;
  let start = 0;
  while (start <= source.length) {
    let end = source.indexOf("\n", start);
    if (end < 0) end = source.length;
    lineNo++;
    // Long lines are data or minified code, and a backtracking regex on them costs.
    if (end - start <= MAX_LINE) {
      const line = source.slice(start, end);
      for (const rule of RULES) {
        const m = rule.re.exec(line);
        if (!m) continue;
        out.push({
          name: m[2]!.slice(0, 200),
          kind: rule.kind(m[1] ?? ""),
          container: null,
          startLine: lineNo,
          endLine: lineNo,
          signature: line.trim().slice(0, MAX_SIGNATURE),
          exported: false,
        });
        break;
      }
    }
    start = end + 1;
  }
  return out;
}

/** Regex outline of one file from disk (used when a ctags run fails after the pass). */
export async function regexOutlineFile(root: string, file: string): Promise<Definition[]> {
  try {
    const buffer = await readFile(path.join(root, file));
    return buffer.subarray(0, 8000).includes(0) ? [] : regexOutline(buffer.toString("utf8"));
  } catch {
    return [];
  }
}
