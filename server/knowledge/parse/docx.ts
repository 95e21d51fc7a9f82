/**
 * Word (.docx) → text. mammoth converts the document to semantic HTML (headings, lists, tables —
 * it is maintained and reads the OOXML itself), and the HTML reader turns that into text, so a
 * heading stays a line of its own and the title is the first heading.
 *
 * A .docx is a zip that mammoth inflates into memory. Before handing it over, every entry is
 * inflated once as a stream and counted (yauzl also checks each entry against its declared size),
 * so a zip bomb is refused instead of exhausting the server's memory.
 */
import mammoth from "mammoth";
import yauzl from "yauzl";
import { htmlToText } from "./html.ts";
import { ParseRefusal } from "./types.ts";

export const MAX_DOCX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;
const MAX_DOCX_ENTRIES = 10_000;
/** Compound File (OLE2) signature: what Word writes for a password-protected .docx (and old .doc). */
const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export async function docxToText(bytes: Uint8Array, name: string): Promise<{ text: string; title: string | null }> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 8).equals(CFB_MAGIC)) {
    throw new ParseRefusal(
      "encrypted",
      `${name} is password-protected (or an old binary .doc renamed to .docx). Remove the password, or save it as a .docx in Word, and upload it again.`,
    );
  }
  await checkZipBounds(buffer, name);
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer })).value;
  } catch (err) {
    throw new ParseRefusal(
      "corrupt",
      `${name} could not be read as a Word document (${firstLine(err)}). Open and save it again in Word, or export it as PDF.`,
    );
  }
  return htmlToText(html);
}

async function checkZipBounds(buffer: Buffer, name: string): Promise<void> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(buffer, {
      lazyEntries: true,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (err) {
    throw new ParseRefusal(
      "corrupt",
      `${name} is not a valid .docx file (not a readable zip: ${firstLine(err)}). The file may be damaged or mislabelled.`,
    );
  }
  let total = 0;
  let entries = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      if (++entries > MAX_DOCX_ENTRIES)
        throw new ParseRefusal(
          "too_large",
          `${name} has more than ${MAX_DOCX_ENTRIES.toLocaleString("en")} parts; that is not a normal Word document.`,
        );
      if (entry.fileName.endsWith("/")) continue;
      const stream = await zip.openReadStreamPromise(entry);
      for await (const chunk of stream) {
        total += (chunk as Buffer).length;
        if (total > MAX_DOCX_UNCOMPRESSED_BYTES) {
          stream.destroy();
          throw new ParseRefusal(
            "too_large",
            `${name} expands to more than ${MAX_DOCX_UNCOMPRESSED_BYTES / 1024 / 1024} MB when unpacked; it is refused to protect the server.`,
          );
        }
      }
    }
  } catch (err) {
    if (err instanceof ParseRefusal) throw err;
    throw new ParseRefusal(
      "corrupt",
      `${name} is a damaged .docx (${firstLine(err)}). Open and save it again in Word.`,
    );
  } finally {
    zip.close();
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split("\n")[0]!
    .slice(0, 200);
}
