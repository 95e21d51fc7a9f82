/**
 * GitHub's webhook deliveries, taken in: signature first (X-Hub-Signature-256, HMAC-SHA256 of the raw
 * body, compared in constant time) — nothing is parsed or stored before it holds — then the event is
 * picked out, the installation looked up, the delivery id recorded (a replay of it is refused) and
 * the work queued. The answer goes back at once; the review runs in the job queue.
 *
 * Answers: 401 bad or missing signature · 400 a body that is not a delivery · 404 an installation no
 * workspace connected (logged with its id) · 409 a delivery id already taken · 202 queued · 200
 * acknowledged and ignored (ping, events and actions Argus does not act on).
 *
 * Comments: every new comment on a pull request (issue comment or review comment) by a person
 * becomes a `forge.comment` job: `@argus …` is a question or a review request, a reply to one of
 * Argus's comments is feedback, and any comment is a moment to read the reactions on Argus's
 * comments (GitHub sends no webhook for reactions). Comments written by a bot — Argus's own among
 * them — are ignored.
 */
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { JobMap } from "../../jobs/kinds.ts";
import type { SignedBy } from "../workspace-apps.ts";

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

const commentUser = z.object({ login: z.string().min(1).max(100), type: z.string().optional() });
const installationAndRepo = {
  installation: z.object({ id: z.number().int().positive() }),
  repository: z.object({ id: z.number().int().positive(), full_name: z.string().min(3).max(300) }),
};
const issueCommentEvent = z.object({
  action: z.string(),
  ...installationAndRepo,
  issue: z.object({ number: z.number().int().positive(), pull_request: z.object({}).passthrough().optional() }),
  comment: z.object({ id: z.number().int().positive(), body: z.string().max(65_536), user: commentUser }),
});
const reviewCommentEvent = z.object({
  action: z.string(),
  ...installationAndRepo,
  pull_request: z.object({ number: z.number().int().positive() }),
  comment: z.object({
    id: z.number().int().positive(),
    body: z.string().max(65_536),
    user: commentUser,
    in_reply_to_id: z.number().int().positive().optional(),
  }),
});

/** What the pull-request job is handed: ids only, the rest is read from GitHub when it runs. */
export type PullJob = JobMap["forge.pull"];
export type CommentJob = JobMap["forge.comment"];

/** How long a connected installation's lookup is reused by the intake. */
export const INSTALLATION_TTL_MS = 30_000;

const answer = (status: number, message: string): IntakeAnswer => ({ status, body: { message } });

export function createGitHubIntake(deps: {
  db: Db;
  log: Logger;
  /** Whether any GitHub App is configured (the environment's, or a workspace's). */
  configured: () => Promise<boolean>;
  /** The signature check: who signed (the environment's App, or a workspace's), or null. */
  verify: (payload: string, signature: string) => Promise<SignedBy | null>;
  enqueue: (job: PullJob) => Promise<void>;
  enqueueComment: (job: CommentJob) => Promise<void>;
}) {
  const { db, log } = deps;
  // A delivery waits on SQLite behind the jobs' writes: the installation it names is looked up once
  // per INSTALLATION_TTL_MS, leaving the delivery's own insert (the replay check) as its only query.
  // Only connected installations are kept, so a new connection counts at once; a removed one is
  // refused within the TTL (its queued jobs find no installation and end).
  const installations = new Map<number, { id: string; workspaceId: string; until: number }>();

  async function lookUpInstallation(installationId: number) {
    const cached = installations.get(installationId);
    if (cached && cached.until > Date.now()) return cached;
    const row = await db.forgeInstallation.findUnique({
      where: { forge_externalId: { forge: "github", externalId: String(installationId) } },
      select: { id: true, workspaceId: true },
    });
    if (row) installations.set(installationId, { ...row, until: Date.now() + INSTALLATION_TTL_MS });
    else installations.delete(installationId);
    return row;
  }

  /** The installation's row id, or the 404 answer (logged with the installation's id). */
  async function installationOf(
    installationId: number,
    repo: string,
    deliveryId: string,
    signedBy: SignedBy,
  ): Promise<{ id: string } | IntakeAnswer> {
    const installation = await lookUpInstallation(installationId);
    // A workspace's own App acts only for that workspace's installations.
    if (installation && (signedBy.workspaceId === null || signedBy.workspaceId === installation.workspaceId))
      return { id: installation.id };
    log.warn(
      { installation: installationId, repo, delivery: deliveryId },
      "GitHub delivery for an installation no workspace has connected",
    );
    return answer(
      404,
      `Installation ${installationId} is not connected to a workspace of this Argus: an owner adds it in Settings → Integrations.`,
    );
  }

  /** Records the delivery id; the 409 answer when it was taken before (a replay). */
  async function recordDelivery(deliveryId: string, event: string): Promise<IntakeAnswer | null> {
    try {
      await db.forgeDelivery.create({ data: { forge: "github", deliveryId, event } });
      return null;
    } catch (err) {
      if (isUniqueViolation(err)) return answer(409, `Delivery ${deliveryId} was already received.`);
      throw err;
    }
  }

  async function pullRequest(json: unknown, deliveryId: string, signedBy: SignedBy): Promise<IntakeAnswer> {
    const parsed = pullRequestEvent.safeParse(json);
    if (!parsed.success)
      return answer(400, "The pull_request delivery lacks its action, number, installation or repository.");
    const event = parsed.data;
    if (!(PULL_ACTIONS as readonly string[]).includes(event.action))
      return answer(200, `Ignored: Argus does not act on pull_request.${event.action}.`);
    const installation = await installationOf(event.installation.id, event.repository.full_name, deliveryId, signedBy);
    if (!("id" in installation)) return installation;
    const refused = await recordDelivery(deliveryId, `pull_request.${event.action}`);
    if (refused) return refused;
    await deps.enqueue({
      installationId: installation.id,
      repo: { id: event.repository.id, fullName: event.repository.full_name },
      number: event.number,
      action: event.action as PullAction,
      headSha: event.pull_request.head.sha,
    });
    return answer(202, `Queued: pull request #${event.number} of ${event.repository.full_name} (${event.action}).`);
  }

  async function comment(
    eventName: string,
    json: unknown,
    deliveryId: string,
    signedBy: SignedBy,
  ): Promise<IntakeAnswer> {
    const review = eventName === "pull_request_review_comment";
    const parsed = (review ? reviewCommentEvent : issueCommentEvent).safeParse(json);
    if (!parsed.success)
      return answer(400, `The ${eventName} delivery lacks its action, comment, installation or repository.`);
    const event = parsed.data;
    const number = "issue" in event ? event.issue.number : event.pull_request.number;
    const inReplyTo = "in_reply_to_id" in event.comment ? event.comment.in_reply_to_id : undefined;
    if (event.action !== "created") return answer(200, `Ignored: Argus does not act on ${eventName}.${event.action}.`);
    if ("issue" in event && !event.issue.pull_request)
      return answer(200, "Ignored: a comment on an issue, not on a pull request.");
    if (event.comment.user.type === "Bot") return answer(200, "Ignored: a bot's comment.");
    const installation = await installationOf(event.installation.id, event.repository.full_name, deliveryId, signedBy);
    if (!("id" in installation)) return installation;
    const refused = await recordDelivery(deliveryId, `${eventName}.${event.action}`);
    if (refused) return refused;
    await deps.enqueueComment({
      installationId: installation.id,
      repo: { id: event.repository.id, fullName: event.repository.full_name },
      number,
      comment: {
        id: event.comment.id,
        kind: review ? "review" : "issue",
        body: event.comment.body,
        author: event.comment.user.login,
        ...(inReplyTo !== undefined ? { inReplyTo } : {}),
      },
    });
    return answer(202, `Queued: a comment on pull request #${number} of ${event.repository.full_name}.`);
  }

  return async function receive(delivery: Delivery): Promise<IntakeAnswer> {
    if (!(await deps.configured()))
      return answer(
        404,
        "No GitHub App is configured on this Argus (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY, GITHUB_WEBHOOK_SECRET).",
      );
    const payload = delivery.body.toString("utf8");
    const signedBy =
      delivery.signature && payload ? await deps.verify(payload, delivery.signature).catch(() => null) : null;
    if (!signedBy)
      return answer(
        401,
        "The X-Hub-Signature-256 header does not match this delivery: check the App's webhook secret.",
      );
    if (!delivery.event || !delivery.deliveryId || delivery.deliveryId.length > 100)
      return answer(400, "A GitHub delivery carries X-GitHub-Event and X-GitHub-Delivery headers; this one does not.");
    if (delivery.event === "ping") return answer(200, "pong");
    const known = ["pull_request", "issue_comment", "pull_request_review_comment"];
    if (!known.includes(delivery.event)) return answer(200, `Ignored: Argus does not act on ${delivery.event} events.`);

    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return answer(400, "The delivery's body is not JSON.");
    }
    if (delivery.event === "pull_request") return pullRequest(json, delivery.deliveryId, signedBy);
    return comment(delivery.event, json, delivery.deliveryId, signedBy);
  };
}
