/**
 * Rooms: who may do what in which room. A room is named after what it shows (server/shared/rooms.ts);
 * its workspace decides: a viewer of it may enter, watch and talk; some messages need a member
 * (server/shared/room-protocol.ts says which).
 */
import { requireRole, type Actor } from "../auth/access.ts";
import type { Role } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import { parseRoom, type ParsedRoom, type RoomName } from "../shared/rooms.ts";

async function workspaceOf(db: Db, { kind, uid }: ParsedRoom): Promise<string | null | undefined> {
  const select = { workspaceId: true } as const;
  switch (kind) {
    case "review":
      return (await db.review.findUnique({ where: { uid }, select }))?.workspaceId;
    case "project":
      return (await db.project.findUnique({ where: { uid }, select }))?.workspaceId;
    case "run":
      return (await db.pipelineRun.findUnique({ where: { uid }, select }))?.workspaceId;
    case "kb":
      return (await db.knowledgeBase.findUnique({ where: { uid }, select }))?.workspaceId;
    case "pipeline":
      return (await db.pipeline.findUnique({ where: { uid }, select }))?.workspaceId;
    case "prompt":
      return (await db.prompt.findUnique({ where: { uid }, select }))?.workspaceId;
  }
}

export interface AuthorizedRoom {
  name: RoomName;
  workspaceId: string;
  /** The sender's role in the workspace, or "spectator" (a share link: server/rooms/spectators.ts). */
  role: Role | "spectator";
}

/**
 * The room once the actor holds `needed` in its workspace; throws invalid / not_found / forbidden
 * otherwise. Called for every message, not only on join: a right lost since is refused at once.
 */
export async function authorizeRoom(
  db: Db,
  actor: Actor,
  room: unknown,
  needed: Role = "viewer",
): Promise<AuthorizedRoom> {
  const parsed = parseRoom(room);
  if (!parsed) throw invalid("That is not a room you can join.");
  const workspaceId = await workspaceOf(db, parsed);
  // Runs started from the command line belong to no workspace: nobody watches them in the app.
  if (!workspaceId) throw notFound(`Nothing to watch at ${parsed.name}: it does not exist or was deleted.`);
  const role = await requireRole(db, actor, workspaceId, needed);
  return { name: parsed.name, workspaceId, role };
}
