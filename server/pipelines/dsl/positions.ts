/**
 * Source positions. The YAML parser gives byte offsets (node.range); diagnostics want 1-based
 * line/col. One SourceMap per file turns either into a Diagnostic, so the parser and validator never
 * deal with offsets themselves.
 */
import type { LineCounter } from "yaml";
import type { Diagnostic, DiagnosticCode, Severity } from "./errors.ts";

export interface Pos {
  line: number;
  col: number;
}

export class SourceMap {
  constructor(
    readonly file: string,
    private readonly lines: LineCounter,
  ) {}

  /** Position of an offset; LineCounter reports line 0 before the first newline is seen. */
  at(offset: number): Pos {
    const { line, col } = this.lines.linePos(offset);
    return { line: Math.max(line, 1), col: Math.max(col, 1) };
  }

  /** Start of a yaml node (anything with `range`); `fallback` for nodes without one (e.g. an empty value). */
  of(node: unknown, fallback: Pos = { line: 1, col: 1 }): Pos {
    const range = (node as { range?: readonly number[] | null } | null | undefined)?.range;
    return range?.[0] !== undefined ? this.at(range[0]) : fallback;
  }

  diag(code: DiagnosticCode, pos: Pos, message: string, hint?: string, severity: Severity = "error"): Diagnostic {
    return { code, severity, file: this.file, line: pos.line, col: pos.col, message, ...(hint ? { hint } : {}) };
  }
}
