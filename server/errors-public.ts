/**
 * What a user sees when a job fails: the one place that turns a thrown value into the text written to
 * a status reason or a room event. An error written for users (isUserFacing, server/errors.ts) keeps
 * its message; anything else — a bug, a file-system or database error, a crash in a parser — would
 * show paths, stack text, SQL or host names to every viewer of the room, so it becomes a sentence with
 * a short reference instead, and the full error (stack included) is logged under the same reference
 * for the operator to find.
 */
import { randomBytes } from "node:crypto";
import { isUserFacing } from "./errors.ts";
import type { Logger } from "./logger.ts";

export interface PublicError {
  /** The text for status reasons and room events. */
  message: string;
  /** Set for unexpected errors: the id under which the log holds the detail. */
  reference?: string;
}

export interface PublicErrorOptions {
  /** What was being done, completing "Something went wrong while …", e.g. "running the review". */
  doing: string;
  log: Logger;
  /** Ids for the log line (review, snapshot, knowledge base …); never shown to users. */
  context?: Record<string, unknown>;
}

/** 8 hex characters: short enough to read out or paste, unique enough to find one log line. */
export const newReference = () => randomBytes(4).toString("hex");

export function publicError(err: unknown, options: PublicErrorOptions): PublicError {
  if (isUserFacing(err)) return { message: err.message };
  const reference = newReference();
  options.log.error({ err, reference, ...options.context }, `unexpected error while ${options.doing}`);
  return {
    message: `Something went wrong while ${options.doing}. Try again; if it keeps failing, give your administrator this reference: ${reference}.`,
    reference,
  };
}
