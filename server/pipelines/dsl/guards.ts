/**
 * Refusals that must happen before (or right after) YAML parsing, because the parser itself is the
 * thing under attack: `yaml` composes flow collections recursively, and a few thousand nested `[`
 * exhaust the stack or — worse — abort the whole process with an out-of-memory regex error. So nesting
 * is bounded by a lexical pre-scan; block nesting (which costs ~depth² bytes of indentation and parses
 * fine) and alias expansion are checked on the parsed document.
 */
import { isAlias, isCollection, isPair, type Document, type Node } from "yaml";
import type { Diagnostic } from "./errors.ts";
import type { ParseLimits } from "./limits.ts";
import type { SourceMap } from "./positions.ts";

export function checkSize(source: string, file: string, limits: ParseLimits): Diagnostic | undefined {
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes <= limits.maxBytes) return undefined;
  return {
    code: "too_large",
    severity: "error",
    file,
    line: 1,
    col: 1,
    message: `Pipeline file is ${bytes} bytes, over the ${limits.maxBytes}-byte limit`,
    hint: "a pipeline is a short list of steps; keep data in parameter files",
  };
}

/**
 * Upper bound of flow-collection nesting ([ and {), skipping quoted scalars and comments. Quotes only
 * open a scalar where one can start (after space, `[{,:` or at line start), so `don't` is not a quote.
 * Returns the offset at which the limit is passed, or -1.
 */
export function flowDepthOverflow(source: string, maxDepth: number): number {
  let depth = 0;
  let quote: string | null = null;
  let comment = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (comment) {
      if (c === "\n") comment = false;
      continue;
    }
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    const prev = i === 0 ? "\n" : source[i - 1];
    const atScalarStart =
      prev === "\n" || prev === " " || prev === "\t" || prev === "[" || prev === "{" || prev === "," || prev === ":";
    if (c === "#" && (prev === "\n" || prev === " " || prev === "\t")) comment = true;
    else if ((c === '"' || c === "'") && atScalarStart) quote = c;
    else if (c === "[" || c === "{") {
      if (++depth > maxDepth) return i;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return -1;
}

/** Deepest collection nesting of the parsed tree, iteratively (no recursion on hostile input). */
export function deepestNode(doc: Document, maxDepth: number): Node | undefined {
  const stack: Array<[unknown, number]> = [[doc.contents, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!isCollection(node)) continue;
    if (depth > maxDepth) return node;
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push([item.key, depth + 1], [item.value, depth + 1]);
      } else stack.push([item, depth + 1]);
    }
  }
  return undefined;
}

/** yaml's own bomb check runs while converting to JS; converting once up front is the cheap way to use it. */
export function checkAliases(doc: Document, map: SourceMap, limits: ParseLimits): Diagnostic | undefined {
  let hasAlias = false;
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0 && !hasAlias) {
    const node = stack.pop();
    if (isAlias(node)) hasAlias = true;
    else if (isCollection(node))
      for (const item of node.items) stack.push(...(isPair(item) ? [item.key, item.value] : [item]));
  }
  if (!hasAlias) return undefined;
  try {
    doc.toJS({ maxAliasCount: limits.maxAliasCount });
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/Excessive alias count/.test(message)) {
      return map.diag(
        "alias_bomb",
        { line: 1, col: 1 },
        `YAML aliases expand past the limit of ${limits.maxAliasCount} nodes`,
        "this looks like an alias bomb; write the steps out instead of nesting aliases",
      );
    }
    return map.diag("yaml", { line: 1, col: 1 }, message);
  }
}
