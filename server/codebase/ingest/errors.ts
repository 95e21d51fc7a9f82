/**
 * Ingest failures: DomainErrors (so adapters map them to 400/409 like any other) with a stable code
 * the UI and tests can switch on. Messages say what was wrong and what to do.
 */
import { DomainError, type DomainErrorKind } from "../../errors.ts";

export type IngestErrorCode =
  // caps
  | "cap_total_bytes"
  | "cap_files"
  | "cap_file_bytes"
  | "cap_ratio"
  | "cap_archive_entries"
  // content
  | "unsafe_path"
  | "path_conflict"
  | "empty"
  | "no_text_files"
  | "not_a_zip"
  | "corrupt_archive"
  | "unsupported_entry"
  // git
  | "bad_url"
  | "transport_refused"
  | "bad_ref"
  | "address_refused"
  | "redirect_refused"
  | "repo_not_found"
  | "auth_failed"
  | "host_unreachable"
  | "ref_not_found"
  | "empty_repository"
  | "timeout"
  | "git_failed"
  // local path / destination
  | "source_not_found"
  | "path_not_allowed"
  | "destination_exists"
  | "aborted";

export class IngestError extends DomainError {
  constructor(
    public readonly code: IngestErrorCode,
    message: string,
    kind: DomainErrorKind = "invalid",
  ) {
    super(kind, message);
    this.name = "IngestError";
  }
}

export const ingestError = (code: IngestErrorCode, message: string, kind?: DomainErrorKind) =>
  new IngestError(code, message, kind);

/** A user-supplied string quoted for a message: JSON-escaped (no control characters) and shortened. */
export function quote(s: string, max = 120): string {
  const q = JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
  return q;
}
