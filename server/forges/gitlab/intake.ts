/**
 * GitLab's webhook deliveries, taken in: the X-Gitlab-Token first — it must be the webhook secret of
 * a connection (found by its HMAC, compared in constant time); nothing is parsed or stored before —
 * then the event is picked out, the project checked to belong to the connection, the event's UUID
 * recorded (a replay is refused) and the work queued as the same `forge.pull` job GitHub's
 * deliveries queue. The answer goes back at once.
 *
 * GitLab's merge request actions map onto the pull-request job's: open → opened, reopen → reopened,
 * update with new commits (`oldrev`) → synchronize, update turning a draft ready → ready_for_review,
 * close / merge → closed. Other updates (title, labels, approvals …) are acknowledged and ignored.
 *
 * A Note Hook on a merge request that mentions `@argus` is queued as the `forge.comment` job GitHub's
 * comments queue (gitlab/notes.ts says which notes are taken; Argus's own never are).
 *
 * Answers: 401 missing or unknown token · 400 not a delivery · 404 a project outside the connection
 * (logged) · 409 an event UUID already taken · 202 queued · 200 acknowledged and ignored.
 */
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { CommentJob, IntakeAnswer, PullAction, PullJob } from "../github/intake.ts";
import { commentOfNote } from "./notes.ts";

export interface GitLabDelivery {
  event: string | undefined;
  eventUuid: string | undefined;
  token: string | undefined;
  body: Buffer;
}

export const MERGE_REQUEST_HOOK = "Merge Request Hook";
export const NOTE_HOOK = "Note Hook";

const changeOf = z.object({ previous: z.unknown(), current: z.unknown() }).partial().optional();

const mergeRequestEvent = z.object({
  object_kind: z.literal("merge_request"),
  project: z.object({ id: z.number().int().positive(), path_with_namespace: z.string().min(3).max(300) }),
  object_attributes: z.object({
    iid: z.number().int().positive(),
    action: z.string().optional(),
    oldrev: z.string().optional(),
    last_commit: z.object({ id: z.string().min(1) }),
  }),
  changes: z.object({ draft: changeOf, work_in_progress: changeOf }).partial().optional(),
});
type MergeRequestEvent = z.infer<typeof mergeRequestEvent>;

const answer = (status: number, message: string): IntakeAnswer => ({ status, body: { message } });

/** The connection a delivery's secret names. */
interface Connection {
  installationId: string;
  namespace: string;
}

/** The pull-request job's action for this merge request event, or null (acknowledged, ignored). */
export function pullActionOf(event: MergeRequestEvent): PullAction | null {
  const a = event.object_attributes;
  switch (a.action) {
    case "open":
      return "opened";
    case "reopen":
      return "reopened";
    case "close":
    case "merge":
      return "closed";
    case "update": {
      if (a.oldrev) return "synchronize";
      const draft = event.changes?.draft ?? event.changes?.work_in_progress;
      if (draft && draft.previous === true && draft.current === false) return "ready_for_review";
      return null;
    }
    default:
      return null;
  }
}

/** Whether a project path is the connected one, or inside the connected group. */
export function belongsTo(path: string, namespace: string): boolean {
  const p = path.toLowerCase();
  return p === namespace || p.startsWith(`${namespace}/`);
}

export function createGitLabIntake(deps: {
  db: Db;
  log: Logger;
  /** The connection this X-Gitlab-Token is the webhook secret of, or null. */
  bySecret: (token: string) => Promise<Connection | null>;
  enqueue: (job: PullJob) => Promise<void>;
  /** A merge request note that mentions `@argus` (gitlab/notes.ts). */
  enqueueComment: (job: CommentJob) => Promise<void>;
}) {
  const { db, log } = deps;

  /** The 404 answer (logged) when the project is not the connection's or under it, else null. */
  function outside(path: string, connection: Connection, eventUuid: string): IntakeAnswer | null {
    if (belongsTo(path, connection.namespace)) return null;
    log.warn(
      { project: path, connection: connection.namespace, delivery: eventUuid },
      "GitLab delivery for a project outside its connection",
    );
    return answer(
      404,
      `${path} is not under ${connection.namespace}, the connection this webhook's secret belongs to.`,
    );
  }

  /** Records the event's UUID; the 409 answer when it was taken before (a replay). */
  async function recordDelivery(eventUuid: string, event: string): Promise<IntakeAnswer | null> {
    try {
      await db.forgeDelivery.create({ data: { forge: "gitlab", deliveryId: eventUuid, event } });
      return null;
    } catch (err) {
      if (isUniqueViolation(err)) return answer(409, `Delivery ${eventUuid} was already received.`);
      throw err;
    }
  }

  async function mergeRequest(json: unknown, connection: Connection, eventUuid: string): Promise<IntakeAnswer> {
    const parsed = mergeRequestEvent.safeParse(json);
    if (!parsed.success) return answer(400, "The merge request delivery lacks its project, iid or last commit.");
    const event = parsed.data;
    const action = pullActionOf(event);
    const name = `!${event.object_attributes.iid} of ${event.project.path_with_namespace}`;
    if (!action)
      return answer(
        200,
        `Ignored: Argus does not act on merge_request.${event.object_attributes.action ?? "?"} (${name}).`,
      );
    const refused =
      outside(event.project.path_with_namespace, connection, eventUuid) ??
      (await recordDelivery(eventUuid, `merge_request.${action}`));
    if (refused) return refused;
    await deps.enqueue({
      installationId: connection.installationId,
      repo: { id: event.project.id, fullName: event.project.path_with_namespace },
      number: event.object_attributes.iid,
      action,
      headSha: event.object_attributes.last_commit.id,
    });
    return answer(202, `Queued: merge request ${name} (${action}).`);
  }

  async function note(json: unknown, connection: Connection, eventUuid: string): Promise<IntakeAnswer> {
    const taken = commentOfNote(json);
    if ("invalid" in taken) return answer(400, taken.invalid);
    if ("ignored" in taken) return answer(200, taken.ignored);
    const refused =
      outside(taken.job.repo.fullName, connection, eventUuid) ?? (await recordDelivery(eventUuid, "note.create"));
    if (refused) return refused;
    await deps.enqueueComment({ installationId: connection.installationId, ...taken.job });
    return answer(202, `Queued: a note on merge request ${taken.name}.`);
  }

  return async function receive(delivery: GitLabDelivery): Promise<IntakeAnswer> {
    const connection = delivery.token ? await deps.bySecret(delivery.token) : null;
    if (!connection)
      return answer(
        401,
        "The X-Gitlab-Token header is not the webhook secret of a GitLab connection of this Argus: check the webhook's secret token.",
      );
    if (!delivery.event || !delivery.eventUuid || delivery.eventUuid.length > 100)
      return answer(
        400,
        "A GitLab delivery carries X-Gitlab-Event and X-Gitlab-Event-UUID headers; this one does not.",
      );
    if (delivery.event !== MERGE_REQUEST_HOOK && delivery.event !== NOTE_HOOK)
      return answer(200, `Ignored: Argus does not act on ${delivery.event.slice(0, 100)} events.`);

    let json: unknown;
    try {
      json = JSON.parse(delivery.body.toString("utf8"));
    } catch {
      return answer(400, "The delivery's body is not JSON.");
    }
    if (delivery.event === NOTE_HOOK) return note(json, connection, delivery.eventUuid);
    return mergeRequest(json, connection, delivery.eventUuid);
  };
}
