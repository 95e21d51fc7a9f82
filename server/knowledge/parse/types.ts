/**
 * What a document parser gives back: the document's text (and its title, when the format has one),
 * or a typed refusal that says, in a sentence a user can act on, why this file yields no text.
 * A refusal marks that one document skipped or failed; it never affects the rest of the base.
 */

/** The formats a knowledge base reads. */
export type DocumentKind = "text" | "markdown" | "html" | "pdf" | "docx";

/**
 * unsupported — a format we do not read (or a binary file with a text name);
 * encrypted   — password-protected PDF / Office file;
 * corrupt     — the file does not parse as the format its name claims;
 * empty       — it parses but has no text (a scanned PDF without a text layer, an empty file);
 * too_large   — it would expand past the parser's memory cap (e.g. a zip bomb inside a .docx).
 */
export type RefusalReason = "unsupported" | "encrypted" | "corrupt" | "empty" | "too_large";

export interface ParsedDocument {
  kind: DocumentKind;
  text: string;
  title: string | null;
}

export class ParseRefusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = "ParseRefusal";
  }

  /** Names the document and why it was refused (server/errors.ts isUserFacing). */
  get userFacing(): boolean {
    return true;
  }
}

/** unsupported, encrypted and empty files are skipped (nothing is wrong with them as such);
 * corrupt and oversized ones failed. */
export function statusForRefusal(reason: RefusalReason): "skipped" | "failed" {
  return reason === "corrupt" || reason === "too_large" ? "failed" : "skipped";
}
