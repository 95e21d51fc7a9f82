/**
 * POST /api/forges/github/webhook — GitHub's deliveries. The route only reads the body and the three
 * headers (webhook-delivery.ts), hands them to the intake and writes its answer; the intake verifies
 * the signature before anything is parsed (server/forges/github/intake.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Services } from "../../context.ts";
import { sendJson } from "../body.ts";
import { readDelivery } from "./webhook-delivery.ts";

export const GITHUB_WEBHOOK_ROUTE = /^\/api\/forges\/github\/webhook$/;

export async function handleGitHubWebhook(
  services: Pick<Services, "forges">,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const delivery = await readDelivery(req, res, "GitHub");
  if (!delivery) return;
  const { body, header } = delivery;
  const answer = await services.forges.receiveGitHub({
    event: header("x-github-event"),
    deliveryId: header("x-github-delivery"),
    signature: header("x-hub-signature-256"),
    body,
  });
  sendJson(res, answer.status, answer.body);
}
