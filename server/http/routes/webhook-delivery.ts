/**
 * What both forges' webhook routes do before their intake: POST only, the body read whole but capped
 * (25 MB, GitHub's own limit; GitLab's is lower), the headers as strings. The intake then checks the
 * signature or token before anything is parsed (each forge's intake.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { buffer } from "node:stream/consumers";
import { declaresMoreThan, limitBody, PayloadTooLarge, sendJson, stopReading } from "../body.ts";

const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge("A webhook delivery is at most 25 MB.");

/** The delivery's body and a header reader, or null when the request was answered already (405, 413). */
export async function readDelivery(
  req: IncomingMessage,
  res: ServerResponse,
  forge: "GitHub" | "GitLab",
): Promise<{ body: Buffer; header: (name: string) => string | undefined } | null> {
  if (req.method !== "POST") {
    sendJson(res, 405, { message: `${forge} delivers webhooks with POST.` });
    return null;
  }
  if (declaresMoreThan(req, MAX_DELIVERY_BYTES)) {
    stopReading(req);
    sendJson(res, 413, { message: tooLarge().message });
    return null;
  }
  let body: Buffer;
  try {
    body = await buffer(limitBody(req, MAX_DELIVERY_BYTES, tooLarge));
  } catch (err) {
    if (!(err instanceof PayloadTooLarge)) throw err;
    sendJson(res, 413, { message: err.message });
    return null;
  }
  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === "string" ? v : undefined;
  };
  return { body, header };
}
