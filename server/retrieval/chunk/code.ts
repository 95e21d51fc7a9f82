/**
 * Code chunks along definitions: a function, class or method per chunk, so a search hit is a unit a
 * reader recognises and its symbol path says where it lives. The definitions come from the symbol
 * layer (server/codebase/symbols: the same tags queries, containers and line ranges the symbol index
 * uses) — passed in when the caller already has them, otherwise parsed here once.
 *
 * Shape of the result, per nesting level:
 *  - a definition that fits (lines and characters) is one chunk, nested definitions included;
 *  - one that does not is opened: its own lines outside nested definitions (class header, fields,
 *    closing brace) become chunks of its path, each nested definition is chunked the same way, and a
 *    definition with nothing nested to open is cut into overlapping line windows;
 *  - comments, decorators and attributes directly above a definition belong to it (a JSDoc block
 *    describes the function below it, not the code above);
 *  - tiny neighbours (one-line getters, an import block, a closing brace) are merged while the result
 *    still fits, so no chunk is too small to say anything.
 * Files without a grammar, or whose parse fails, are cut into line windows.
 */
import { grammarFor, parse } from "../../codebase/treesitter.ts";
import { extractSymbols } from "../../codebase/symbols/extract.ts";
import type { Definition, SymbolKind } from "../../codebase/symbols/types.ts";

export interface CodeChunk {
  file: string;
  language: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Where the chunk lives: "Greeter.hi" for a method, "Greeter" for a class or the parts of a
   * class between its methods, the common container of merged neighbours, null at top level. */
  symbolPath: string | null;
  /** Every definition the chunk covers (outermost first), with its kind: for symbol-kind filters. */
  symbols: { path: string; kind: SymbolKind }[];
  /** Set when one definition was cut into windows: 1-based part and the number of parts. */
  part?: { index: number; count: number };
  text: string;
}

export interface CodeChunkOptions {
  /** A chunk holds at most this many lines… */
  maxLines?: number;
  /** …and this many characters (a line longer than this is cut on its own). */
  maxChars?: number;
  /** Lines shared by consecutive windows of one long definition (context across the cut). */
  overlapLines?: number;
  /** Chunks with fewer non-blank lines than this are merged into a neighbour when the result fits. */
  minLines?: number;
}

export const CODE_CHUNK_DEFAULTS: Required<CodeChunkOptions> = {
  maxLines: 60,
  maxChars: 2400,
  overlapLines: 5,
  minLines: 6,
};

export interface CodeFile {
  path: string;
  language: string;
  source: string;
  /** Definitions from the symbol index; omitted → parsed here (or line windows without a grammar). */
  definitions?: Definition[];
}

/** Chunk one file. Never throws on bad input: a parse failure degrades to line windows. */
export async function chunkCode(file: CodeFile, options: CodeChunkOptions = {}): Promise<CodeChunk[]> {
  let definitions = file.definitions;
  if (!definitions) {
    definitions = [];
    const grammar = grammarFor(file.language);
    if (grammar) {
      const { tree } = await parse(grammar, file.source).catch(() => ({ tree: null }));
      if (tree) {
        try {
          definitions = (await extractSymbols(grammar, tree.rootNode, file.source)).definitions;
        } catch {
          definitions = [];
        } finally {
          tree.delete();
        }
      }
    }
  }
  return chunkCodeWithDefinitions(file, definitions, options);
}

/** Kinds that become units of their own. Fields, and variables inside functions, stay in the text
 * of what encloses them: one-line units would only be merged back. */
const LEAF_ONLY = new Set<SymbolKind>(["field", "variable", "constant"]);

interface Unit {
  def: Definition;
  path: string;
  start: number;
  end: number;
  children: Unit[];
}

interface Piece {
  start: number;
  end: number;
  symbolPath: string | null;
  symbols: { path: string; kind: SymbolKind }[];
  /** symbolPath names the piece's one definition (not merely its container). */
  own: boolean;
  /** Inside an opened definition: merged only with its siblings there, never across its boundary
   * (a chunk holding an import and half a class would have no honest symbol path). */
  sealed?: boolean;
  /** Part of a windowed definition: never merged (it is already as large as allowed). */
  part?: { index: number; count: number };
  /** Text override for a piece of one over-long line. */
  text?: string;
}

/** The chunking itself, given the definitions: synchronous and deterministic. */
export function chunkCodeWithDefinitions(
  file: Omit<CodeFile, "definitions">,
  definitions: Definition[],
  options: CodeChunkOptions = {},
): CodeChunk[] {
  const o = { ...CODE_CHUNK_DEFAULTS, ...options };
  if (o.maxLines < 1 || o.overlapLines < 0 || o.overlapLines >= o.maxLines || o.maxChars < 1)
    throw new Error("chunkCode: need maxLines ≥ 1, 0 ≤ overlapLines < maxLines, maxChars ≥ 1");
  const lines = file.source.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop(); // a final newline ends the last line
  if (lines.length === 0) return [];
  const ctx = { lines, o, chars: prefixChars(lines) };

  const units = buildUnits(definitions, lines);
  return chunkLevel(ctx, 1, lines.length, units, null).map((p) => ({
    file: file.path,
    language: file.language,
    startLine: p.start,
    endLine: p.end,
    symbolPath: p.symbolPath,
    symbols: p.symbols,
    ...(p.part ? { part: p.part } : {}),
    text: p.text ?? lines.slice(p.start - 1, p.end).join("\n"),
  }));
}

interface Ctx {
  lines: string[];
  o: Required<CodeChunkOptions>;
  /** chars[i] = characters (incl. newlines) of lines 1..i: a range's size in O(1). */
  chars: number[];
}

function prefixChars(lines: string[]): number[] {
  const out = [0];
  for (const l of lines) out.push(out[out.length - 1]! + l.length + 1);
  return out;
}

const size = (ctx: Ctx, start: number, end: number) => ({
  lines: end - start + 1,
  chars: ctx.chars[end]! - ctx.chars[start - 1]! - 1,
});
const fits = (ctx: Ctx, start: number, end: number) => {
  const s = size(ctx, start, end);
  return s.lines <= ctx.o.maxLines && s.chars <= ctx.o.maxChars;
};

/** Definitions → a forest by line nesting, each start extended over the comments right above it. */
function buildUnits(definitions: Definition[], lines: string[]): Unit[] {
  const defs = definitions
    .filter((d) => !(LEAF_ONLY.has(d.kind) && (d.kind === "field" || d.container !== null)))
    .filter((d) => d.startLine >= 1 && d.endLine >= d.startLine && d.startLine <= lines.length)
    .sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const roots: Unit[] = [];
  const stack: Unit[] = [];
  for (const def of defs) {
    const end = Math.min(def.endLine, lines.length);
    while (stack.length && stack[stack.length - 1]!.end < def.startLine) stack.pop();
    const parent = stack[stack.length - 1];
    // Partial overlap with the enclosing unit (two definitions sharing a line): keep what is inside.
    if (parent && end > parent.end) continue;
    const siblings = parent ? parent.children : roots;
    const prev = siblings[siblings.length - 1];
    let start = def.startLine;
    // A sibling ending on this definition's first line (`}; function f() {`) keeps that line.
    if (prev && prev.end >= start) start = prev.end + 1;
    if (start > end) continue;
    if (parent && start === parent.start && end === parent.end) continue; // the same node tagged twice
    const containerPath = parent ? parent.path : def.container;
    const unit: Unit = {
      def,
      path: containerPath ? `${containerPath}.${def.name}` : def.name,
      start,
      end,
      children: [],
    };
    siblings.push(unit);
    stack.push(unit);
  }
  attachLeadingComments(roots, 0, lines);
  return roots;
}

/** Lines that introduce the definition below them: comments, decorators, attributes. */
const LEADING = /^\s*(\/\/|\/\*|\*|#|@|--)/;

function attachLeadingComments(units: Unit[], floor: number, lines: string[]): void {
  let prevEnd = floor;
  for (const u of units) {
    let start = u.start;
    // Stop at a blank line or at the previous sibling: only what is glued to the definition.
    while (start - 1 > prevEnd && LEADING.test(lines[start - 2]!)) start--;
    u.start = start;
    attachLeadingComments(u.children, u.start, lines);
    prevEnd = u.end;
  }
}

/** Pieces of the line range [start, end] of one level, whose definitions are `units`, merged. */
function chunkLevel(ctx: Ctx, start: number, end: number, units: Unit[], path: string | null): Piece[] {
  return merge(ctx, chunkLevelRaw(ctx, start, end, units, path));
}

function chunkLevelRaw(ctx: Ctx, start: number, end: number, units: Unit[], path: string | null): Piece[] {
  const pieces: Piece[] = [];
  let cursor = start;
  for (const u of units) {
    if (u.start > cursor) pieces.push(...gap(ctx, cursor, u.start - 1, path));
    pieces.push(...chunkUnit(ctx, u));
    cursor = u.end + 1;
  }
  if (cursor <= end) pieces.push(...gap(ctx, cursor, end, path));
  return pieces;
}

function chunkUnit(ctx: Ctx, u: Unit): Piece[] {
  const symbols = flatten(u);
  if (fits(ctx, u.start, u.end)) return [{ start: u.start, end: u.end, symbolPath: u.path, symbols, own: true }];
  if (u.children.length) {
    // The unit's own lines (header, fields, closing brace) carry its symbol; its children theirs.
    const own = { path: u.path, kind: u.def.kind };
    // Its own lines are tagged before merging, so a merged piece lists the container too.
    const tagged = chunkLevelRaw(ctx, u.start, u.end, u.children, u.path).map((p) =>
      p.symbols.length ? p : { ...p, symbols: [own] },
    );
    return merge(ctx, tagged).map((p) => ({ ...p, sealed: true }));
  }
  const windows = lineWindows(ctx, u.start, u.end, u.path);
  return windows.map((w, i) => ({
    ...w,
    symbols: [{ path: u.path, kind: u.def.kind }],
    own: true,
    part: { index: i + 1, count: windows.length },
  }));
}

function flatten(u: Unit): { path: string; kind: SymbolKind }[] {
  return [{ path: u.path, kind: u.def.kind }, ...u.children.flatMap(flatten)];
}

/** Lines between definitions: dropped when blank, windowed when long. */
function gap(ctx: Ctx, start: number, end: number, path: string | null): Piece[] {
  // Trim blank lines at both ends: they separate, they do not belong to anything.
  while (start <= end && !ctx.lines[start - 1]!.trim()) start++;
  while (end >= start && !ctx.lines[end - 1]!.trim()) end--;
  if (start > end) return [];
  if (fits(ctx, start, end)) return [{ start, end, symbolPath: path, symbols: [], own: false }];
  return lineWindows(ctx, start, end, path);
}

/**
 * Overlapping windows over [start, end]: as many as the line limit needs, evened out so the last one
 * is not a runt, each also capped by characters. A single line over the character cap is cut alone.
 */
function lineWindows(ctx: Ctx, start: number, end: number, path: string | null): Piece[] {
  const { maxLines, overlapLines: ov, maxChars } = ctx.o;
  const total = end - start + 1;
  const count = total <= maxLines ? 1 : Math.ceil((total - ov) / (maxLines - ov));
  const target = Math.min(maxLines, Math.ceil((total + (count - 1) * ov) / count));
  const out: Piece[] = [];
  let s = start;
  for (;;) {
    const line = ctx.lines[s - 1]!;
    if (line.length > maxChars) {
      // One over-long line (minified code, a data blob): character slices of it, same line number.
      for (let i = 0; i < line.length; i += maxChars)
        out.push({ start: s, end: s, symbolPath: path, symbols: [], own: false, text: line.slice(i, i + maxChars) });
      if (s >= end) break;
      s++;
      continue;
    }
    let e = Math.min(s + target - 1, end);
    while (e > s && !fits(ctx, s, e)) e--;
    out.push({ start: s, end: e, symbolPath: path, symbols: [], own: false });
    if (e >= end) break;
    // Step back by the overlap, but always advance (a window of ≤ ov lines would loop).
    s = Math.max(s + 1, e + 1 - Math.min(ov, e - s));
  }
  return out;
}

const nonBlank = (ctx: Ctx, p: Piece) => {
  let n = 0;
  for (let i = p.start; i <= p.end; i++) if (ctx.lines[i - 1]!.trim()) n++;
  return n;
};

/** Merge tiny pieces with a neighbour when the union still fits; windowed parts are left alone. */
function merge(ctx: Ctx, pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const prev = out[out.length - 1];
    const mergeable = (q: Piece) => !q.part && !q.sealed && q.text === undefined;
    if (
      prev &&
      mergeable(prev) &&
      mergeable(p) &&
      (nonBlank(ctx, prev) < ctx.o.minLines || nonBlank(ctx, p) < ctx.o.minLines) &&
      fits(ctx, prev.start, p.end)
    ) {
      out[out.length - 1] = {
        start: prev.start,
        end: p.end,
        symbolPath: commonPath(prev, p),
        symbols: dedupe([...prev.symbols, ...p.symbols]),
        own: false,
      };
    } else out.push(p);
  }
  return out;
}

function dedupe(symbols: { path: string; kind: SymbolKind }[]): { path: string; kind: SymbolKind }[] {
  const seen = new Set<string>();
  return symbols.filter((x) => !seen.has(x.path) && seen.add(x.path) !== undefined);
}

/**
 * The symbol path of two merged pieces: their deepest common container. A piece that is a container's
 * own text ("Greeter" header) merged with its member ("Greeter.hi") gives "Greeter".
 */
function commonPath(a: Piece, b: Piece): string | null {
  if (a.symbolPath === null || b.symbolPath === null) return null;
  const pa = a.symbolPath.split(".");
  const pb = b.symbolPath.split(".");
  // A definition's own path names it; its container is one step up (two sibling methods → the class).
  if (a.own) pa.pop();
  if (b.own) pb.pop();
  const common: string[] = [];
  for (let i = 0; i < Math.min(pa.length, pb.length) && pa[i] === pb[i]; i++) common.push(pa[i]!);
  return common.length ? common.join(".") : null;
}
