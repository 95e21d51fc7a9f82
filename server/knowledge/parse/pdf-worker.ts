/**
 * The PDF worker's entry (started by pdf.ts): extracts the text of one PDF per message, one at a time.
 */
import { parentPort } from "node:worker_threads";
import { extractPdfText } from "./pdf-extract.ts";
import { ParseRefusal } from "./types.ts";
import type { PdfReply, PdfRequest } from "./pdf.ts";

const port = parentPort!;
port.on("message", async ({ id, bytes, name }: PdfRequest) => {
  let reply: PdfReply;
  try {
    reply = { id, ok: true, ...(await extractPdfText(bytes, name)) };
  } catch (err) {
    reply =
      err instanceof ParseRefusal
        ? { id, ok: false, reason: err.reason, message: err.message }
        : {
            id,
            ok: false,
            reason: "corrupt",
            message: `${name} could not be read as a PDF (${(err as Error).message}).`,
          };
  }
  port.postMessage(reply);
});
port.postMessage({ type: "ready" });
