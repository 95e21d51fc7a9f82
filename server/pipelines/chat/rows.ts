/** What the parts of the pipeline chat service share: their deps, a session loaded with the caller's role, turns. */
import { requireRole, requireUser, type Actor } from "../../auth/access.ts";
import type { Db } from "../../db/client.ts";
import { conflict, forbidden, notFound } from "../../errors.ts";
import type { EventBus } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import type { ChatSource, ChatTarget, ChatTurn, ChatTurnMode, ChatTurnStatus } from "../../shared/pipeline-chat.ts";
import type { PipelineService } from "../workspace/service.ts";
import type { chatCapability, ChatCapability } from "./capability.ts";

export interface ChatDeps {
  db: Db;
  events: EventBus;
  log: Logger;
  pipelines: PipelineService;
  /** Where the follow-ups' run folders go (run-dir.ts). */
  root: string;
  /** A pipeline's chat capability, cached by key (gallery entry, or workspace pipeline id and version). */
  capabilityOf: (key: string, input: Parameters<typeof chatCapability>[0]) => Promise<ChatCapability>;
}

type MessageRow = Awaited<ReturnType<Db["pipelineChatMessage"]["findFirstOrThrow"]>>;

export const parseSources = (json: string | null): ChatSource[] => (json ? (JSON.parse(json) as ChatSource[]) : []);

export function turnView(m: MessageRow): ChatTurn {
  return {
    uid: m.uid,
    role: m.role as ChatTurn["role"],
    body: m.body,
    status: m.status as ChatTurnStatus,
    mode: (m.mode as ChatTurnMode | null) ?? null,
    runUid: m.runUid,
    sources: parseSources(m.sources),
    error: m.error,
    createdAt: m.createdAt,
  };
}

export async function loadChat(db: Db, actor: Actor, chatUid: string, role: "viewer" | "member") {
  const row = await db.pipelineChat.findUnique({
    where: { uid: chatUid },
    include: { pipeline: { select: { uid: true } } },
  });
  if (!row) throw notFound(`No chat session ${chatUid}. It may have been deleted.`);
  const actorRole = await requireRole(db, actor, row.workspaceId, role);
  return { row, role: actorRole };
}

export function ownerOnly(row: { createdById: string }, actor: Actor, what: string) {
  if (row.createdById !== requireUser(actor).userId)
    throw forbidden(`Only the member who started this session can ${what}.`);
}

/** The session's pipeline as a run target, or why it has none any more. */
export function targetOf(row: { workspaceId: string; galleryKey: string | null; pipeline: { uid: string } | null }) {
  if (row.pipeline) return { uid: row.pipeline.uid } satisfies ChatTarget;
  if (row.galleryKey) return { workspaceId: row.workspaceId, key: row.galleryKey } satisfies ChatTarget;
  throw conflict("This session's pipeline was deleted: start a new session with another pipeline.");
}
