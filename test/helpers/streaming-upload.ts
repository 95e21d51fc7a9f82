/**
 * Uploads whose body is generated while it is sent (chunked, no Content-Length), to see how much of
 * it a server reads before answering: a server that stops at its cap answers while most of the body
 * was never produced.
 */
import http from "node:http";

export interface StreamingReply {
  status: number;
  body: { message?: string } & Record<string, unknown>;
  /** Bytes the client had produced when the answer arrived. */
  sentBytes: number;
}

/** POSTs `prefix`, then `fillerBytes` of "a", then `suffix`, produced 64 KB at a time as the server reads. */
export async function postStreaming(
  url: string,
  headers: Record<string, string>,
  fillerBytes: number,
  parts: { prefix?: string; suffix?: string } = {},
): Promise<StreamingReply> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const enc = new TextEncoder();
  let sent = 0;
  let filler = 0;
  let stage: "prefix" | "filler" | "suffix" | "done" = "prefix";
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === "prefix") {
        stage = "filler";
        const bytes = enc.encode(parts.prefix ?? "");
        if (bytes.length > 0) {
          sent += bytes.length;
          controller.enqueue(bytes);
          return;
        }
      }
      if (stage === "filler") {
        if (filler < fillerBytes) {
          const piece = chunk.subarray(0, Math.min(chunk.length, fillerBytes - filler));
          filler += piece.length;
          sent += piece.length;
          controller.enqueue(piece);
          return;
        }
        stage = "suffix";
      }
      if (stage === "suffix") {
        stage = "done";
        const bytes = enc.encode(parts.suffix ?? "");
        sent += bytes.length;
        if (bytes.length > 0) controller.enqueue(bytes);
      }
      controller.close();
    },
  });
  const res = await fetch(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  const sentBytes = sent;
  const text = await res.text();
  let json: StreamingReply["body"];
  try {
    json = JSON.parse(text) as StreamingReply["body"];
  } catch {
    json = { message: text };
  }
  return { status: res.status, body: json, sentBytes };
}

/** The multipart framing around one file part, for postStreaming's prefix and suffix. */
export function multipartFrame(boundary: string, field: string, filename: string): { prefix: string; suffix: string } {
  return {
    prefix:
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
      "Content-Type: text/plain\r\n\r\n",
    suffix: `\r\n--${boundary}--\r\n`,
  };
}

/** POSTs headers announcing `contentLength` bytes and sends none of them: the answer can only be a refusal by size. */
export function postDeclaredOnly(
  url: string,
  headers: Record<string, string>,
  contentLength: number,
): Promise<{ status: number; body: { message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(url), {
      method: "POST",
      headers: { ...headers, "content-length": String(contentLength) },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) as { message?: string } }));
    });
    req.on("error", reject);
    req.flushHeaders();
  });
}
