/**
 * POST /api/forges/gitlab/webhook — GitLab's deliveries. The route only reads the body (capped at
 * 25 MB) and the three headers, hands them to the intake and writes its answer; the intake checks the
 * X-Gitlab-Token before anything is parsed (intake.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { buffer } from "node:stream/consumers";
import type { Services } from "../../context.ts";
import { declaresMoreThan, limitBody, PayloadTooLarge, sendJson, stopReading } from "../body.ts";

export const GITLAB_WEBHOOK_ROUTE = /^\/api\/forges\/gitlab\/webhook$/;
const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

const tooLarge = () => new PayloadTooLarge("A webhook delivery is at most 25 MB.");

export async function handleGitLabWebhook(
  services: Pick<Services, "forges">,
  req: IncomingMessage,
  res: ServerResponse,
) {
  if (req.method !== "POST") return sendJson(res, 405, { message: "GitLab delivers webhooks with POST." });
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
  const answer = await services.forges.receiveGitLab({
    event: header("x-gitlab-event"),
    eventUuid: header("x-gitlab-event-uuid"),
    token: header("x-gitlab-token"),
    body,
  });
  sendJson(res, answer.status, answer.body);
}
