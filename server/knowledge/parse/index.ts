/**
 * One entry point for every format: picks the parser by file extension (checked against the
 * content where a format has a signature), normalises the text, and refuses files that yield no
 * words. Throws ParseRefusal for anything a user can fix; never anything else for bad input.
 */
import path from "node:path";
import { docxToText } from "./docx.ts";
import { htmlToText } from "./html.ts";
import { markdownToText } from "./markdown.ts";
import { hasWords, normalizeText } from "./normalize.ts";
import { pdfToText } from "./pdf.ts";
import { decodeText } from "./text.ts";
import { ParseRefusal, type DocumentKind, type ParsedDocument } from "./types.ts";

export { ParseRefusal, statusForRefusal, type DocumentKind, type ParsedDocument, type RefusalReason } from "./types.ts";

const KINDS: Record<string, DocumentKind> = {
  ".txt": "text",
  ".text": "text",
  ".md": "markdown",
  ".markdown": "markdown",
  ".mdx": "markdown",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".pdf": "pdf",
  ".docx": "docx",
};

export const SUPPORTED_EXTENSIONS = Object.keys(KINDS);

/** MIME types recorded with each document (what the browser sent is not trusted). */
export const MIME: Record<DocumentKind, string> = {
  text: "text/plain",
  markdown: "text/markdown",
  html: "text/html",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

const HINTS: Record<string, string> = {
  ".doc": " Save it as .docx in Word first.",
  ".rtf": " Save it as .docx or PDF first.",
  ".odt": " Save it as .docx or PDF first.",
  ".pptx": " Export it as PDF first.",
  ".xlsx": " Export the sheet as CSV text or PDF first.",
};

/** The kind a file name maps to, or null when the format is not read. */
export function kindOf(name: string): DocumentKind | null {
  return KINDS[path.extname(name).toLowerCase()] ?? null;
}

export function unsupportedMessage(name: string): string {
  const ext = path.extname(name).toLowerCase();
  return `${name}: ${ext ? `"${ext}" files are` : "files without an extension are"} not supported. Upload .txt, .md, .html, .pdf or .docx documents.${HINTS[ext] ?? ""}`;
}

export async function parseDocument(name: string, bytes: Uint8Array): Promise<ParsedDocument> {
  const kind = kindOf(name);
  if (!kind) throw new ParseRefusal("unsupported", unsupportedMessage(name));
  let parsed: { text: string; title: string | null };
  switch (kind) {
    case "text":
      parsed = { text: decodeText(bytes, name), title: null };
      break;
    case "markdown":
      parsed = markdownToText(decodeText(bytes, name));
      break;
    case "html":
      parsed = htmlToText(decodeText(bytes, name));
      break;
    case "pdf":
      parsed = await pdfToText(bytes, name);
      break;
    case "docx":
      parsed = await docxToText(bytes, name);
      break;
  }
  const text = normalizeText(parsed.text);
  if (!hasWords(text))
    throw new ParseRefusal("empty", `${name} has no text to index${bytes.length === 0 ? " (the file is empty)" : ""}.`);
  return { kind, text, title: parsed.title?.trim() || null };
}
