/**
 * A workspace's chat sessions: the pipelines that can chat, the sessions listed, one read (its running
 * answers completed from their runs first), started, renamed, deleted, exported.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { requireRole, requireUser, type Actor } from "../../auth/access.ts";
import { invalid } from "../../errors.ts";
import { citedIds, NEW_CHAT_TITLE } from "../../shared/pipeline-chat.ts";
import { runRoom } from "../../shared/rooms.ts";
import { galleryEntries } from "../workspace/gallery.ts";
import { userNames } from "../workspace/rows.ts";
import { turnResult } from "./answer.ts";
import { chatCapability } from "./capability.ts";
import { exportFileName, sessionDocx, sessionMarkdown } from "./export.ts";
import { type ChatDeps, loadChat, ownerOnly, parseSources, turnView } from "./rows.ts";
import type { chatCreateInput, chatExportInput, chatRenameInput } from "./inputs.ts";

/** The pipelines a chat can use, and the others with the reason they cannot. */
export async function chatPipelines({ db, capabilityOf }: ChatDeps, actor: Actor, workspaceId: string) {
  await requireRole(db, actor, workspaceId, "viewer");
  const own = await db.pipeline.findMany({
    where: { workspaceId },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    select: { id: true, uid: true, name: true, title: true, version: true, source: true, parameters: true },
  });
  return Promise.all([
    ...own.map(async (p) => {
      const c = await capabilityOf(`p:${p.id}:${p.version}`, {
        name: p.name,
        source: p.source,
        parameters: JSON.parse(p.parameters) as Record<string, unknown>,
      });
      return {
        kind: "workspace" as const,
        target: { uid: p.uid },
        name: p.name,
        title: p.title,
        ok: c.ok,
        reason: c.ok ? null : c.reason,
      };
    }),
    ...galleryEntries().map(async (e) => {
      const c = await capabilityOf(`g:${e.key}`, { name: e.key, source: e.source, parameters: e.parameters });
      return {
        kind: "gallery" as const,
        target: { workspaceId, key: e.key },
        name: e.key,
        title: e.meta.title,
        ok: c.ok,
        reason: c.ok ? null : c.reason,
      };
    }),
  ]);
}

/** The workspace's sessions, the most recently active first. */
export async function listSessions({ db }: ChatDeps, actor: Actor, workspaceId: string) {
  await requireRole(db, actor, workspaceId, "viewer");
  const rows = await db.pipelineChat.findMany({
    where: { workspaceId },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: 200,
    include: { _count: { select: { messages: true } } },
  });
  const name = await userNames(
    db,
    rows.map((r) => r.createdById),
  );
  return rows.map((r) => ({
    uid: r.uid,
    title: r.title,
    pipelineTitle: r.pipelineTitle,
    createdBy: name(r.createdById),
    mine: r.createdById === actor?.userId,
    turns: Math.ceil(r._count.messages / 2),
    updatedAt: r.updatedAt,
  }));
}

/** Completes the session's running answers whose runs have ended (from each run's record and room). */
export async function settle({ db, events }: ChatDeps, chatId: string) {
  const running = await db.pipelineChatMessage.findMany({ where: { chatId, status: "running" } });
  for (const m of running) {
    if (!m.runUid) continue;
    const run = await db.pipelineRun.findUnique({
      where: { uid: m.runUid },
      select: { status: true, error: true, outputs: true, memoryFile: true },
    });
    if (run?.status === "running") continue;
    const result = run
      ? turnResult(run, await events.history(runRoom(m.runUid)))
      : { status: "failed" as const, body: "", sources: [], error: "The run of this answer is gone." };
    const known = m.mode === "conversation" ? parseSources(m.sources) : result.sources;
    // A follow-up shows the session's sources it cites; a pipeline answer all it retrieved.
    const cited = new Set(citedIds(result.body, new Set(known.map((s) => s.id))));
    const sources = m.mode === "conversation" ? known.filter((s) => cited.has(s.id)) : known;
    await db.pipelineChatMessage.updateMany({
      where: { id: m.id, status: "running" },
      data: {
        status: result.status,
        body: result.body,
        sources: JSON.stringify(sources),
        error: result.error,
        finishedAt: new Date(),
      },
    });
  }
}

export async function sessionView(d: ChatDeps, actor: Actor, chatUid: string) {
  const { row, role } = await loadChat(d.db, actor, chatUid, "viewer");
  await settle(d, row.id);
  const messages = await d.db.pipelineChatMessage.findMany({
    where: { chatId: row.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const name = await userNames(d.db, [row.createdById]);
  const mine = row.createdById === actor?.userId;
  const gone = !row.pipeline && !row.galleryKey;
  return {
    uid: row.uid,
    workspaceId: row.workspaceId,
    title: row.title,
    pipelineTitle: row.pipelineTitle,
    pipelineUid: row.pipeline?.uid ?? null,
    galleryKey: row.galleryKey,
    createdBy: name(row.createdById),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    turns: messages.map(turnView),
    canAsk: mine && role !== "viewer" && !gone,
    canRename: mine && role !== "viewer",
    canDelete: (mine && role !== "viewer") || role === "owner",
    pipelineGone: gone,
  };
}

export async function createSession({ db, pipelines }: ChatDeps, actor: Actor, input: z.infer<typeof chatCreateInput>) {
  const spec = await pipelines.runSpec(actor, input.target);
  const capability = await chatCapability(spec);
  if (!capability.ok) throw invalid(`This pipeline cannot chat. ${capability.reason}`);
  const row =
    "uid" in input.target
      ? await db.pipeline.findUniqueOrThrow({ where: { uid: input.target.uid }, select: { id: true, title: true } })
      : null;
  const title = row?.title ?? galleryEntries().find((e) => e.key === spec.name)?.meta.title ?? spec.name;
  const chat = await db.pipelineChat.create({
    data: {
      uid: randomUUID(),
      workspaceId: spec.workspaceId,
      ...(row ? { pipelineId: row.id } : { galleryKey: spec.name }),
      pipelineTitle: title,
      title: NEW_CHAT_TITLE,
      createdById: requireUser(actor).userId,
    },
  });
  return { uid: chat.uid };
}

export async function renameSession({ db }: ChatDeps, actor: Actor, input: z.infer<typeof chatRenameInput>) {
  const { row } = await loadChat(db, actor, input.uid, "member");
  ownerOnly(row, actor, "rename it");
  await db.pipelineChat.update({ where: { id: row.id }, data: { title: input.name } });
  return { uid: row.uid, title: input.name };
}

export async function removeSession({ db, pipelines }: ChatDeps, actor: Actor, chatUid: string) {
  const { row, role } = await loadChat(db, actor, chatUid, "member");
  if (role !== "owner") ownerOnly(row, actor, "delete it (or an owner)");
  // An answer still running stops: nobody will read it.
  const running = await db.pipelineChatMessage.findMany({
    where: { chatId: row.id, status: "running", runUid: { not: null } },
    select: { runUid: true },
  });
  for (const m of running) pipelines.runs.cancel(m.runUid!);
  await db.pipelineChat.delete({ where: { id: row.id } });
  return { ok: true as const };
}

export async function exportSession(d: ChatDeps, actor: Actor, input: z.infer<typeof chatExportInput>) {
  const s = await sessionView(d, actor, input.uid);
  const session = {
    title: s.title,
    pipelineTitle: s.pipelineTitle,
    createdBy: s.createdBy,
    createdAt: s.createdAt,
    turns: s.turns,
  };
  if (input.format === "markdown")
    return {
      fileName: exportFileName(s.title, "md"),
      mimeType: "text/markdown",
      base64: Buffer.from(sessionMarkdown(session), "utf8").toString("base64"),
    };
  return {
    fileName: exportFileName(s.title, "docx"),
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    base64: (await sessionDocx(session)).toString("base64"),
  };
}
