/**
 * Domain errors. Services throw these with a sentence a user understands; the tRPC layer (and any
 * other adapter) maps each kind to its status: 400, 401, 403, 404, 409.
 */
export type DomainErrorKind = "invalid" | "unauthenticated" | "forbidden" | "not_found" | "conflict";

export class DomainError extends Error {
  constructor(
    public readonly kind: DomainErrorKind,
    message: string,
    /** The input field the message is about (a form shows it under that field, as zod's field errors). */
    public readonly field?: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const invalid = (message: string, field?: string) => new DomainError("invalid", message, field);

/** The snapshot has no code-search index (search_code's refusal): its own class, so a caller with another way to help can tell it apart. */
export class NoSearchIndexError extends DomainError {
  constructor() {
    super(
      "invalid",
      "This snapshot has no code-search index, so search_code can't answer. Use grep for text, find_definition for symbols, list_dir to explore.",
    );
    this.name = "NoSearchIndexError";
  }
}
export const unauthenticated = (message = "Sign in to continue.") => new DomainError("unauthenticated", message);
export const forbidden = (message: string) => new DomainError("forbidden", message);
export const notFound = (message: string) => new DomainError("not_found", message);
export const conflict = (message: string) => new DomainError("conflict", message);

/** The HTTP status of each kind, for the plain HTTP routes (tRPC maps the same kinds to its codes). */
export const HTTP_STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

/**
 * Whether an error's message was written for the person who sees it: it says what went wrong and what
 * to do, and carries no file-system paths, stack text, SQL or internal host names. Every DomainError
 * is; another class opts in with a `userFacing` getter returning true (LlmError, the pipeline
 * engine's errors, …) — a wrapper may answer for its cause (StepError). Anything else is an
 * unexpected error: users see a sentence and a reference, the log gets the detail
 * (server/errors-public.ts).
 */
export function isUserFacing(err: unknown): err is Error {
  if (err instanceof DomainError) return true;
  return err instanceof Error && (err as { userFacing?: unknown }).userFacing === true;
}
