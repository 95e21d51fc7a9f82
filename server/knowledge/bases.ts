/**
 * Knowledge bases themselves: listed and read by viewers; created, renamed, re-chunked, rebuilt and
 * deleted by members; and, at start-up, the ones a restart cut off indexed again.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { isUniqueViolation } from "../db/client.ts";
import { conflict } from "../errors.ts";
import { kbRoom } from "../shared/rooms.ts";
import { DEFAULT_CHUNKING } from "./chunking.ts";
import type { chunkingInput, createBaseInput, updateBaseInput } from "./inputs.ts";
import { baseView, loadBase, loadBaseFor, scheduleIndexing, type BaseView, type KnowledgeDeps } from "./rows.ts";
import { dropBaseStorage } from "./storage.ts";

const nameTaken = (name: string) =>
  conflict(`A knowledge base named “${name}” already exists in this workspace. Choose another name.`);

/** Bases whose indexing a restart cut off are indexed again (everything they need is on disk). */
export async function recoverInterrupted({ db, indexer }: KnowledgeDeps): Promise<number> {
  const stuck = await db.knowledgeBase.findMany({ where: { status: "indexing" }, select: { id: true } });
  for (const b of stuck) indexer.schedule(b.id);
  return stuck.length;
}

export async function listBases({ db }: KnowledgeDeps, actor: Actor, workspaceId: string): Promise<BaseView[]> {
  await requireRole(db, actor, workspaceId, "viewer");
  const rows = await db.knowledgeBase.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return Promise.all(rows.map((base) => baseView(db, base)));
}

export async function getBase({ db }: KnowledgeDeps, actor: Actor, uid: string): Promise<BaseView> {
  return baseView(db, await loadBaseFor(db, actor, uid, "viewer"));
}

export async function createBase(
  { db }: KnowledgeDeps,
  actor: Actor,
  input: z.infer<typeof createBaseInput>,
): Promise<BaseView> {
  await requireRole(db, actor, input.workspaceId, "member");
  try {
    const base = await db.knowledgeBase.create({
      data: {
        uid: randomUUID(),
        workspaceId: input.workspaceId,
        name: input.name,
        description: input.description || null,
        chunking: JSON.stringify(input.chunking ?? DEFAULT_CHUNKING),
        embedder: input.embedder,
      },
    });
    return baseView(db, base);
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(input.name);
    throw err;
  }
}

export async function updateBase(
  { db }: KnowledgeDeps,
  actor: Actor,
  input: z.infer<typeof updateBaseInput>,
): Promise<BaseView> {
  const base = await loadBaseFor(db, actor, input.uid, "member");
  try {
    const data: { name?: string; description?: string | null } = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.description !== undefined) data.description = input.description || null;
    return baseView(db, await db.knowledgeBase.update({ where: { id: base.id }, data }));
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(input.name ?? base.name);
    throw err;
  }
}

/** The base, its documents, its files on disk, its index and its event room. */
export async function removeBase({ db, config, log, events }: KnowledgeDeps, actor: Actor, uid: string): Promise<void> {
  const base = await loadBaseFor(db, actor, uid, "member");
  await db.knowledgeBase.delete({ where: { id: base.id } });
  await dropBaseStorage(config, base.id, log);
  await events.deleteRoom(kbRoom(base.uid));
}

/** New chunking settings: saved, then every document is re-chunked (not re-parsed). */
export async function setChunking(
  d: KnowledgeDeps,
  actor: Actor,
  input: z.infer<typeof chunkingInput>,
): Promise<BaseView> {
  const { db } = d;
  const base = await loadBaseFor(db, actor, input.uid, "member");
  const updated = await db.knowledgeBase.update({
    where: { id: base.id },
    data: { chunking: JSON.stringify(input.chunking) },
  });
  if (await db.knowledgeDocument.count({ where: { knowledgeBaseId: base.id, status: { in: ["pending", "ready"] } } }))
    await scheduleIndexing(d, updated, "Waiting to re-chunk");
  return baseView(db, await loadBase(db, base.uid));
}

export async function rebuildBase(d: KnowledgeDeps, actor: Actor, uid: string): Promise<BaseView> {
  const base = await loadBaseFor(d.db, actor, uid, "member");
  await scheduleIndexing(d, base);
  return baseView(d.db, await loadBase(d.db, uid));
}
