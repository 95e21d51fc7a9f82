/**
 * Rooms: who may watch what. A room is named after what it shows — `review:<uid>`, `run:<uid>`,
 * `kb:<uid>` — and anyone who may read that thing (a viewer of its workspace) may join it.
 */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";

export const roomNameSchema = z
  .string()
  .regex(/^(review|run|kb):[0-9a-f-]{36}$/i, "a room is review:<uid>, run:<uid> or kb:<uid>");

async function workspaceOf(db: Db, room: string): Promise<string | null | undefined> {
  const [kind, uid] = room.split(":") as [string, string];
  if (kind === "review")
    return (await db.review.findUnique({ where: { uid }, select: { workspaceId: true } }))?.workspaceId;
  if (kind === "run")
    return (await db.pipelineRun.findUnique({ where: { uid }, select: { workspaceId: true } }))?.workspaceId;
  return (await db.knowledgeBase.findUnique({ where: { uid }, select: { workspaceId: true } }))?.workspaceId;
}

/** The room's name once the actor may watch it; throws invalid / not_found / forbidden otherwise. */
export async function authorizeRoom(db: Db, actor: Actor, room: unknown): Promise<string> {
  const parsed = roomNameSchema.safeParse(room);
  // Only a string names a room (an array would pass String() and then join something else).
  if (!parsed.success) throw invalid("That is not a room you can join.");
  const name = parsed.data;
  const workspaceId = await workspaceOf(db, name);
  // Runs started from the command line belong to no workspace: nobody watches them in the app.
  if (!workspaceId) throw notFound(`Nothing to watch at ${name}: it does not exist or was deleted.`);
  await requireRole(db, actor, workspaceId, "viewer");
  return name;
}
