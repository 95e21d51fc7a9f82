/**
 * Runs only inside the PDF worker (pdf-worker.ts), never in the server's own thread: see pdf.ts.
 *
 * PDF → text with pdfjs-dist (Mozilla's parser, pure JavaScript; 5.6 is the last line that runs on
 * Node 20 — 5.7+ wants Node 22). The legacy build runs in Node with a same-thread "fake" worker and
 * needs no canvas for text. Each page's text items are joined in content order, line ends where the
 * PDF has them; pages are separated by a blank line; hyphenated line breaks are re-joined (as
 * UltraRAG's corpus builder does). Password-protected, broken and text-less (scanned) files are
 * refused with the reason.
 */
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";
import { hasWords } from "./normalize.ts";
import { ParseRefusal } from "./types.ts";

/** Far beyond any document worth searching; bounds the time a hostile file can take. */
export const MAX_PDF_PAGES = 5_000;
export const MAX_PDF_TEXT_CHARS = 20_000_000;

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

export async function extractPdfText(bytes: Uint8Array, name: string): Promise<{ text: string; title: string | null }> {
  // pdfjs takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    stopAtErrors: false,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const kind = (err as { name?: string }).name;
    if (kind === "PasswordException")
      throw new ParseRefusal(
        "encrypted",
        `${name} is password-protected. Remove the password (e.g. print it to a new PDF) and upload it again.`,
      );
    throw new ParseRefusal(
      "corrupt",
      `${name} could not be read as a PDF (${(err as Error).message || kind}). The file may be damaged; try exporting it again.`,
    );
  }
  try {
    if (doc.numPages > MAX_PDF_PAGES)
      throw new ParseRefusal(
        "too_large",
        `${name} has ${doc.numPages.toLocaleString("en")} pages; the limit is ${MAX_PDF_PAGES.toLocaleString("en")}. Split it into smaller files.`,
      );
    const pages: string[] = [];
    let total = 0;
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      const text = (content.items as TextItemLike[]).map((it) => (it.str ?? "") + (it.hasEOL ? "\n" : "")).join("");
      page.cleanup();
      total += text.length;
      if (total > MAX_PDF_TEXT_CHARS)
        throw new ParseRefusal(
          "too_large",
          `${name} holds more than ${MAX_PDF_TEXT_CHARS.toLocaleString("en")} characters of text. Split it into smaller files.`,
        );
      pages.push(text.trim());
    }
    const text = reflow(pages.filter(Boolean).join("\n\n"));
    if (!hasWords(text)) {
      throw new ParseRefusal(
        "empty",
        `${name} has no text layer (it is probably scanned images). Run it through OCR and upload the result.`,
      );
    }
    const info = (await doc.getMetadata().catch(() => null))?.info as { Title?: unknown } | undefined;
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : null;
    return { text, title };
  } catch (err) {
    if (err instanceof ParseRefusal) throw err;
    throw new ParseRefusal(
      "corrupt",
      `${name} could not be read to the end (${(err as Error).message}). The file may be damaged; try exporting it again.`,
    );
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/** Re-join words hyphenated across a line break ("retrie-\nval" → "retrieval"). */
function reflow(text: string): string {
  return text.replace(/(\p{Ll})-\n(\p{Ll})/gu, "$1$2");
}
