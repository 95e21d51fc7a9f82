/**
 * POST /api/forges/github/webhook — GitHub's deliveries. The route only reads the body (capped at
 * GitHub's own 25 MB) and the three headers, hands them to the intake and writes its answer; the
 * intake verifies the signature before anything is parsed (intake.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { buffer } from "node:stream/consumers";
import type { Services } from "../../context.ts";
import { declaresMoreThan, limitBody, PayloadTooLarge, sendJson, stopReading } from "../body.ts";

export const GITHUB_WEBHOOK_ROUTE = /^\/api\/forges\/github\/webhook$/;
const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge("A webhook delivery is at most 25 MB (GitHub's own limit).");

export async function handleGitHubWebhook(
  services: Pick<Services, "forges">,
  req: IncomingMessage,
  res: ServerResponse,
) {
  if (req.method !== "POST") return sendJson(res, 405, { message: "GitHub delivers webhooks with POST." });
  if (declaresMoreThan(req, MAX_DELIVERY_BYTES)) {
    stopReading(req);
    return sendJson(res, 413, { message: tooLarge().message });
  }
  let body: Buffer;
  try {
    body = await buffer(limitBody(req, MAX_DELIVERY_BYTES, tooLarge));
  } catch (err) {
    if (err instanceof PayloadTooLarge) return sendJson(res, 413, { message: err.message });
    throw err;
  }
  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === "string" ? v : undefined;
  };
  const answer = await services.forges.receiveGitHub({
    event: header("x-github-event"),
    deliveryId: header("x-github-delivery"),
    signature: header("x-hub-signature-256"),
    body,
  });
  sendJson(res, answer.status, answer.body);
}
