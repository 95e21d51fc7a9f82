/**
 * Plain text: bytes → string. A byte-order mark decides UTF-8 / UTF-16; otherwise UTF-8 if the bytes
 * are valid UTF-8, else Windows-1252 (the usual "ANSI" of older text files, and a superset of
 * Latin-1 for printable characters). NUL bytes mean a binary file with a text name: refused.
 */
import { isBinary } from "../../codebase/languages.ts";
import { ParseRefusal } from "./types.ts";

export function decodeText(bytes: Uint8Array, name: string): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe)
    return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff)
    return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  if (isBinary(bytes)) {
    throw new ParseRefusal(
      "unsupported",
      `${name} looks like a binary file, not text (it contains NUL bytes). Upload text, Markdown, HTML, PDF or Word (.docx) documents.`,
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return decodeWindows1252(bytes);
  }
}

/** Node's "windows-1252" decoder is Latin-1 (0x80–0x9F come out as C1 controls); these are the
 * printable characters Windows puts there (undefined slots stay U+FFFD). */
const CP1252_HIGH = "€\ufffd‚ƒ„…†‡ˆ‰Š‹Œ\ufffdŽ\ufffd\ufffd‘’“”•–—˜™š›œ\ufffdžŸ";

function decodeWindows1252(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
  return out;
}
