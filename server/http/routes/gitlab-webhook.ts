/**
 * POST /api/forges/gitlab/webhook — GitLab's deliveries. The route only reads the body and the three
 * headers (webhook-delivery.ts), hands them to the intake and writes its answer; the intake checks the
 * X-Gitlab-Token before anything is parsed (server/forges/gitlab/intake.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Services } from "../../context.ts";
import { sendJson } from "../body.ts";
import { readDelivery } from "./webhook-delivery.ts";

export const GITLAB_WEBHOOK_ROUTE = /^\/api\/forges\/gitlab\/webhook$/;

export async function handleGitLabWebhook(
  services: Pick<Services, "forges">,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const delivery = await readDelivery(req, res, "GitLab");
  if (!delivery) return;
  const { body, header } = delivery;
  const answer = await services.forges.receiveGitLab({
    event: header("x-gitlab-event"),
    eventUuid: header("x-gitlab-event-uuid"),
    token: header("x-gitlab-token"),
    body,
  });
  sendJson(res, answer.status, answer.body);
}
