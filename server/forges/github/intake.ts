/**
 * GitHub's webhook deliveries, taken in: signature first (X-Hub-Signature-256, HMAC-SHA256 of the raw
 * body, compared in constant time) — nothing is parsed or stored before it holds — then the event is
 * picked out, the installation looked up, the delivery id recorded (a replay of it is refused) and
 * the work queued. The answer goes back at once; the review runs in the job queue.
 *
 * Answers: 401 bad or missing signature · 400 a body that is not a delivery · 404 an installation no
 * workspace connected (logged with its id) · 409 a delivery id already taken · 202 queued · 200
 * acknowledged and ignored (ping, events and actions Argus does not act on).
 */
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { JobMap } from "../../jobs/kinds.ts";

export interface Delivery {
  event: string | undefined;
  deliveryId: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

export interface IntakeAnswer {
  status: number;
  body: { message: string };
}

/** The pull-request actions that start (or end) a review. */
export const PULL_ACTIONS = ["opened", "reopened", "synchronize", "ready_for_review", "closed"] as const;
export type PullAction = (typeof PULL_ACTIONS)[number];

const pullRequestEvent = z.object({
  action: z.string(),
  number: z.number().int().positive(),
  installation: z.object({ id: z.number().int().positive() }),
  repository: z.object({ id: z.number().int().positive(), full_name: z.string().min(3).max(300) }),
  pull_request: z.object({ draft: z.boolean().optional(), head: z.object({ sha: z.string().min(1) }) }),
});

/** What the pull-request job is handed: ids only, the rest is read from GitHub when it runs. */
export type PullJob = JobMap["forge.pull"];

const answer = (status: number, message: string): IntakeAnswer => ({ status, body: { message } });

export function createGitHubIntake(deps: {
  db: Db;
  log: Logger;
  /** The App's signature check; undefined when no GitHub App is configured. */
  verify: ((payload: string, signature: string) => Promise<boolean>) | undefined;
  enqueue: (job: PullJob) => Promise<void>;
}) {
  const { db, log } = deps;

  return async function receive(delivery: Delivery): Promise<IntakeAnswer> {
    if (!deps.verify)
      return answer(
        404,
        "No GitHub App is configured on this Argus (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_WEBHOOK_SECRET).",
      );
    const payload = delivery.body.toString("utf8");
    if (!delivery.signature || !payload || !(await deps.verify(payload, delivery.signature).catch(() => false)))
      return answer(
        401,
        "The X-Hub-Signature-256 header does not match this delivery: check the App's webhook secret.",
      );
    if (!delivery.event || !delivery.deliveryId || delivery.deliveryId.length > 100)
      return answer(400, "A GitHub delivery carries X-GitHub-Event and X-GitHub-Delivery headers; this one does not.");
    if (delivery.event === "ping") return answer(200, "pong");
    if (delivery.event !== "pull_request")
      return answer(200, `Ignored: Argus does not act on ${delivery.event} events.`);

    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return answer(400, "The delivery's body is not JSON.");
    }
    const parsed = pullRequestEvent.safeParse(json);
    if (!parsed.success)
      return answer(400, "The pull_request delivery lacks its action, number, installation or repository.");
    const event = parsed.data;
    if (!(PULL_ACTIONS as readonly string[]).includes(event.action))
      return answer(200, `Ignored: Argus does not act on pull_request.${event.action}.`);

    const installation = await db.forgeInstallation.findUnique({
      where: { forge_externalId: { forge: "github", externalId: String(event.installation.id) } },
      select: { id: true },
    });
    if (!installation) {
      log.warn(
        { installation: event.installation.id, repo: event.repository.full_name, delivery: delivery.deliveryId },
        "GitHub delivery for an installation no workspace has connected",
      );
      return answer(
        404,
        `Installation ${event.installation.id} is not connected to a workspace of this Argus: an owner adds it in Settings → Integrations.`,
      );
    }
    try {
      await db.forgeDelivery.create({
        data: { forge: "github", deliveryId: delivery.deliveryId, event: `${delivery.event}.${event.action}` },
      });
    } catch (err) {
      if (isUniqueViolation(err)) return answer(409, `Delivery ${delivery.deliveryId} was already received.`);
      throw err;
    }
    await deps.enqueue({
      installationId: installation.id,
      repo: { id: event.repository.id, fullName: event.repository.full_name },
      number: event.number,
      action: event.action as PullAction,
      headSha: event.pull_request.head.sha,
    });
    return answer(202, `Queued: pull request #${event.number} of ${event.repository.full_name} (${event.action}).`);
  };
}
