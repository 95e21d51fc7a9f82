/**
 * Pipeline diagnostics. Every problem the parser or validator finds is a Diagnostic pointing at a
 * place in the YAML file, printed as `file:line:col: message (hint)` so editors and terminals can jump
 * to it. Throwing adapters wrap them in a DomainError of kind "invalid" (see server/errors.ts), so the
 * tRPC/CLI layers map them like any other user error.
 */
import { DomainError } from "../../errors.ts";

export type DiagnosticCode =
  | "too_large" // file over the byte limit
  | "too_deep" // YAML or step nesting over the limit
  | "alias_bomb" // YAML aliases expand past the limit
  | "yaml" // YAML syntax error
  | "shape" // top level / servers / step has the wrong shape
  | "bad_tool_ref" // "alias.tool" is not exactly one dot
  | "unknown_server" // a servers: entry the registry does not know
  | "unknown_alias" // a step names an alias missing from servers:
  | "unknown_tool" // the server has no such tool (or prompt)
  | "unknown_input" // input: names a parameter the tool does not declare
  | "unknown_output" // output: names an output the tool does not declare
  | "undefined_variable" // a variable read before any step produced it
  | "missing_param" // $param absent from the alias's parameters
  | "malformed_loop"
  | "malformed_branch"
  | "ignored_key"; // a key UltraRAG silently ignores

export type Severity = "error" | "warning";

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  message: string;
  hint?: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  const prefix = d.severity === "warning" ? "warning: " : "";
  return `${d.file}:${d.line}:${d.col}: ${prefix}${d.message}${d.hint ? ` (${d.hint})` : ""}`;
}

export const errorsOf = (ds: readonly Diagnostic[]) => ds.filter((d) => d.severity === "error");

/** Thrown by the *OrThrow helpers; message lists every error, one per line. */
export class PipelineInvalidError extends DomainError {
  constructor(public readonly diagnostics: readonly Diagnostic[]) {
    super("invalid", errorsOf(diagnostics).map(formatDiagnostic).join("\n"));
    this.name = "PipelineInvalidError";
  }
}
