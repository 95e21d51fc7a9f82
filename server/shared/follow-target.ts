/**
 * "Follow the agent": which file and lines the review agent is looking at, read from its tool calls
 * (server/agent/tools: their argument shapes) and, where the arguments do not name a file (a grep
 * over a folder, a definition lookup, a code search), from the first hit in the call's result preview.
 *
 * Arguments and previews come from the model and the project's code: every value is checked before
 * it is used (a path is a bounded string, a line a positive whole number); nothing here is trusted
 * further than "a path to ask the snapshot file procedure for", which goes through the Sandbox.
 */
import type { RoomEvent } from "./room-events.ts";

export interface FollowTarget {
  path: string;
  /** Lines to mark, as inclusive [first, last] ranges; empty: the file as a whole. */
  ranges: [number, number][];
  /** The line to bring into view. */
  focus: number;
  /** The tool call this comes from. */
  tool: string;
  seq: number;
  /** What the agent did there, in a few words ("read lines 10–40", "grep \"execute\": 2 hits"). */
  label: string;
}

type CallTarget = Omit<FollowTarget, "seq" | "tool">;

/** As many lines as read_file shows per call (server/agent/tools/limits.ts MAX_READ_FILE_LINES). */
const READ_FILE_LINES = 1000;
const MAX_LINE = 10_000_000;

function pathOf(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const p = v.trim().replace(/^(\.\/)+/, "");
  if (!p || p === "." || p.length > 4096 || /[\0\n\r]/.test(p)) return null;
  return p;
}

/** A 1-based line number as the tools accept it (numbers or numeric strings: they coerce). */
function lineOf(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_LINE ? n : null;
}

const quoted = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}…` : v) : "");
const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

function target(path: string, ranges: [number, number][], label: string): CallTarget {
  return { path, ranges, focus: ranges[0]?.[0] ?? 1, label };
}

/** The preview's lines (the first TOOL_PREVIEW_CHARS characters of the result; the last may be cut). */
const linesOf = (preview: string | undefined) => (preview ? preview.split("\n") : []);

/**
 * The first file of a grouped listing (grep, find_references): a header line naming the file, then
 * indented rows starting with their line number. Returns the file and the lines of its rows.
 */
function firstGroup(preview: string | undefined, row: RegExp): { path: string; lines: number[] } | null {
  const rows = linesOf(preview).slice(1); // the first line is the summary ("3 matching lines in …:")
  for (let i = 0; i < rows.length; i++) {
    const header = rows[i]!;
    if (/^\s/.test(header) || header.startsWith("[")) continue;
    const path = pathOf(header);
    if (!path) continue;
    const lines: number[] = [];
    for (let j = i + 1; j < rows.length && /^\s/.test(rows[j]!); j++) {
      const m = row.exec(rows[j]!);
      const n = m ? lineOf(m[1]) : null;
      if (n !== null) lines.push(n);
    }
    if (lines.length) return { path, lines };
  }
  return null;
}

/** The first `path:start-end` of a listing (definitions, symbols across files, code search hits). */
function firstLocated(preview: string | undefined, row: RegExp): { path: string; start: number; end: number } | null {
  for (const l of linesOf(preview)) {
    const m = row.exec(l);
    if (!m) continue;
    const path = pathOf(m[1]);
    const start = lineOf(m[2]);
    const end = lineOf(m[3]);
    if (path && start !== null) return { path, start, end: end !== null && end >= start ? end : start };
  }
  return null;
}

const DEFINITION_ROW = /^(\S(?:.*?\S)?):(\d+)-(\d+)\s{2}/;
const SEARCH_ROW = /^\d+\. (\S(?:.*?\S)?):(\d+)-(\d+)(?:\s|$)/;

/** The target of one tool call, given its result preview when it has arrived; null: no file in it. */
export function targetOfCall(name: string, input: Record<string, unknown>, preview?: string): CallTarget | null {
  switch (name) {
    case "read_file": {
      const path = pathOf(input.path);
      if (!path) return null;
      const start = lineOf(input.start_line);
      const end = lineOf(input.end_line);
      if (start === null && end === null) return target(path, [], "read the file");
      const first = start ?? 1;
      const last = end !== null && end >= first ? end : first + READ_FILE_LINES - 1;
      return target(path, [[first, last]], end !== null ? `read lines ${first}–${last}` : `read from line ${first}`);
    }
    case "grep": {
      const hits = firstGroup(preview, /^\s+(\d+):/);
      if (hits) {
        const ranges = hits.lines.map((n): [number, number] => [n, n]);
        return target(hits.path, ranges, `grep ${quoted(input.pattern)}: ${plural(hits.lines.length, "hit")} here`);
      }
      return null;
    }
    case "find_references": {
      const refs = firstGroup(preview, /^\s+(\d+):\d+\s/);
      if (!refs) return null;
      const ranges = refs.lines.map((n): [number, number] => [n, n]);
      return target(refs.path, ranges, `references to ${quoted(input.name)}`);
    }
    case "find_definition": {
      const def = firstLocated(preview, DEFINITION_ROW);
      return def ? target(def.path, [[def.start, def.end]], `definition of ${quoted(input.name)}`) : null;
    }
    case "list_symbols": {
      const file = pathOf(input.file);
      if (file) return target(file, [], "outline");
      const sym = firstLocated(preview, DEFINITION_ROW);
      return sym ? target(sym.path, [[sym.start, sym.end]], `symbols matching ${quoted(input.query)}`) : null;
    }
    case "search_code": {
      const hit = firstLocated(preview, SEARCH_ROW);
      return hit ? target(hit.path, [[hit.start, hit.end]], `code search ${quoted(input.query)}`) : null;
    }
    case "get_file_summary": {
      const path = pathOf(input.path);
      return path ? target(path, [], "file summary") : null;
    }
    case "find_module": {
      const resolved = /resolves to the project file (.+)\.$/m.exec(preview ?? "");
      const path = pathOf(resolved?.[1]) ?? pathOf(input.from_file);
      return path ? target(path, [], `import ${quoted(input.specifier)}`) : null;
    }
    default:
      // list_dir, get_git_log, get_diff, get_static_analysis, search over folders: no one file.
      return null;
  }
}

/**
 * Where the agent is looking at the end of `events`: its latest tool call that names a file, read
 * with the call's result when that has arrived. A call whose result was an error (a file that does
 * not exist) is passed over. Null until the first such call.
 */
export function followTarget(events: readonly RoomEvent<"review">[]): FollowTarget | null {
  const results = new Map<string, { preview: string; isError: boolean }>();
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "tool_result") {
      results.set(e.payload.id, { preview: e.payload.preview, isError: e.payload.isError });
      continue;
    }
    if (e.type !== "tool_call") continue;
    const result = results.get(e.payload.id);
    if (result?.isError) continue;
    const t = targetOfCall(e.payload.name, e.payload.input, result?.preview);
    if (t) return { ...t, tool: e.payload.name, seq: e.seq };
  }
  return null;
}
