/**
 * Chat with a pipeline (issue 16 item 5): sessions with a pipeline that answers questions
 * (capability.ts), kept per workspace in `pipeline_chat` / `pipeline_chat_message`.
 *
 * A session's first question runs the whole pipeline on it (a web run with the one-question data
 * set, through the pipeline service); the answer is the text its generation step wrote, with the
 * sources its retrieval sent (answer.ts). Later questions are follow-ups over the earlier turns
 * (conversation.ts), unless the asker wants the whole pipeline again. Every answer is a run: its room
 * streams the tokens, and the turn is completed from the run's record when the session is read next.
 *
 * Who: every viewer of the workspace lists and reads its sessions and exports them; a member starts
 * one; only the member who started a session asks in it and renames it; they or an owner delete it.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { requireRole, requireUser, type Actor } from "../../auth/access.ts";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { conflict, forbidden, invalid, notFound } from "../../errors.ts";
import type { EventBus } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import {
  chatMessageText,
  chatTargetSchema,
  chatTitle,
  citedIds,
  NEW_CHAT_TITLE,
  titleFromQuestion,
  type ChatSource,
  type ChatTarget,
  type ChatTurn,
  type ChatTurnMode,
  type ChatTurnStatus,
} from "../../shared/pipeline-chat.ts";
import { runRoom } from "../../shared/rooms.ts";
import { galleryEntries } from "../workspace/gallery.ts";
import { withSecrets } from "../workspace/parameters.ts";
import { prepareRunDir, runsRoot } from "../workspace/run-dir.ts";
import { MAX_RUNNING_PER_WORKSPACE } from "../workspace/run-launch.ts";
import type { PipelineService } from "../workspace/service.ts";
import { turnResult } from "./answer.ts";
import { chatCapability, modelProblem, type ChatCapability } from "./capability.ts";
import { contextSources, conversationPipeline, historyAlias, historyMessages, type PastTurn } from "./conversation.ts";
import { exportFileName, sessionDocx, sessionMarkdown } from "./export.ts";

const uid = z.uuid("uid must be a UUID");
export const chatCreateInput = z.object({ target: chatTargetSchema });
export const chatSendInput = z.object({
  uid,
  text: chatMessageText,
  /** Run the whole pipeline on this question even though the session has answers (UltraRAG's force_full_pipeline). */
  fullPipeline: z.boolean().optional(),
});
export const chatRenameInput = z.object({ uid, name: chatTitle });
export const chatExportInput = z.object({ uid, format: z.enum(["markdown", "docx"]) });

type MessageRow = Awaited<ReturnType<Db["pipelineChatMessage"]["findFirstOrThrow"]>>;

const parseSources = (json: string | null): ChatSource[] => (json ? (JSON.parse(json) as ChatSource[]) : []);

function turnView(m: MessageRow): ChatTurn {
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

/** Secrets reach the engine as overrides (whole top-level values of an alias), never in the run's files. */
function secretOverrides(alias: string, plain: Record<string, unknown>, withKeys: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(withKeys))
    if (JSON.stringify(value) !== JSON.stringify(plain[key])) out[key] = value;
  return Object.keys(out).length ? { [alias]: out } : undefined;
}

export function createPipelineChatService(deps: {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  pipelines: PipelineService;
}) {
  const { db, events, pipelines } = deps;
  const root = runsRoot(deps.config.dataDir);
  // Gallery entries never change in a process; workspace pipelines are keyed by id and version.
  const capabilities = new Map<string, Promise<ChatCapability>>();
  const capabilityOf = (key: string, input: Parameters<typeof chatCapability>[0]) => {
    let hit = capabilities.get(key);
    if (!hit) {
      hit = chatCapability(input);
      capabilities.set(key, hit);
      if (capabilities.size > 500) capabilities.delete(capabilities.keys().next().value!);
    }
    return hit;
  };

  async function loadChat(actor: Actor, chatUid: string, role: "viewer" | "member") {
    const row = await db.pipelineChat.findUnique({
      where: { uid: chatUid },
      include: { pipeline: { select: { uid: true } } },
    });
    if (!row) throw notFound(`No chat session ${chatUid}. It may have been deleted.`);
    const actorRole = await requireRole(db, actor, row.workspaceId, role);
    return { row, role: actorRole };
  }

  const ownerOnly = (row: { createdById: string }, actor: Actor, what: string) => {
    if (row.createdById !== requireUser(actor).userId)
      throw forbidden(`Only the member who started this session can ${what}.`);
  };

  /** The session's pipeline as a run target, or why it has none any more. */
  function targetOf(row: { workspaceId: string; galleryKey: string | null; pipeline: { uid: string } | null }) {
    if (row.pipeline) return { uid: row.pipeline.uid } satisfies ChatTarget;
    if (row.galleryKey) return { workspaceId: row.workspaceId, key: row.galleryKey } satisfies ChatTarget;
    throw conflict("This session's pipeline was deleted: start a new session with another pipeline.");
  }

  /** Completes the session's running answers whose runs have ended (from each run's record and room). */
  async function settle(chatId: string) {
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

  async function userNames(ids: string[]) {
    const users = ids.length
      ? await db.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, name: true } })
      : [];
    const names = new Map(users.map((u) => [u.id, u.name]));
    return (id: string) => names.get(id) ?? null;
  }

  async function sessionView(actor: Actor, chatUid: string) {
    const { row, role } = await loadChat(actor, chatUid, "viewer");
    await settle(row.id);
    const messages = await db.pipelineChatMessage.findMany({
      where: { chatId: row.id },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    const name = await userNames([row.createdById]);
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

  async function startConversationTurn(
    actor: Actor,
    target: ChatTarget,
    capability: Extract<ChatCapability, { ok: true }>,
    messages: ReturnType<typeof historyMessages>,
    question: string,
  ) {
    const spec = await pipelines.runSpec(actor, target);
    const alias = capability.generationAlias;
    const plain = (capability.effective[alias] ?? {}) as Record<string, unknown>;
    const withKeys = withSecrets({ [alias]: plain }, spec.secrets)[alias] as Record<string, unknown>;
    const runUid = randomUUID();
    const { dir, file } = prepareRunDir(root, runUid, {
      name: spec.name,
      source: conversationPipeline(alias),
      parameters: { [historyAlias(alias)]: { turns: messages }, [alias]: plain },
    });
    const overrides = secretOverrides(alias, plain, withKeys);
    const started = await pipelines.runs.start({
      uid: runUid,
      file,
      cwd: dir,
      demo: true,
      ...(overrides ? { overrides } : {}),
      workspaceId: spec.workspaceId,
      origin: "app",
      actor: requireUser(actor),
      ...spec.record,
      dataset: { kind: "chat", question, followUp: true },
    });
    started.done.catch((err: unknown) =>
      deps.log.error({ err, run: started.uid }, "chat follow-up: recording its end failed"),
    );
    return started.uid;
  }

  return {
    /** The pipelines a chat can use, and the others with the reason they cannot. */
    async pipelines(actor: Actor, workspaceId: string) {
      await requireRole(db, actor, workspaceId, "viewer");
      const own = await db.pipeline.findMany({
        where: { workspaceId },
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
        select: { id: true, uid: true, name: true, title: true, version: true, source: true, parameters: true },
      });
      const items = await Promise.all([
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
      return items;
    },

    /** The workspace's sessions, the most recently active first. */
    async sessions(actor: Actor, workspaceId: string) {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.pipelineChat.findMany({
        where: { workspaceId },
        orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
        take: 200,
        include: { _count: { select: { messages: true } } },
      });
      const name = await userNames(rows.map((r) => r.createdById));
      return rows.map((r) => ({
        uid: r.uid,
        title: r.title,
        pipelineTitle: r.pipelineTitle,
        createdBy: name(r.createdById),
        mine: r.createdById === actor?.userId,
        turns: Math.ceil(r._count.messages / 2),
        updatedAt: r.updatedAt,
      }));
    },

    get: sessionView,

    async create(actor: Actor, input: z.infer<typeof chatCreateInput>) {
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
    },

    /** Asks the session's pipeline; resolves once the answer's run has started (its room streams it). */
    async send(actor: Actor, input: z.infer<typeof chatSendInput>) {
      const { row } = await loadChat(actor, input.uid, "member");
      ownerOnly(row, actor, "ask in it (start a session of your own)");
      await settle(row.id);
      const target = targetOf(row);
      const past = await db.pipelineChatMessage.findMany({
        where: { chatId: row.id },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      if (past.some((m) => m.status === "running"))
        throw conflict("The previous answer is still running: wait for it, or cancel its run.");
      const spec = await pipelines.runSpec(actor, target);
      const capability = await chatCapability(spec);
      if (!capability.ok) throw invalid(`This pipeline cannot chat. ${capability.reason}`);
      const alias = capability.generationAlias;
      const section = withSecrets({ [alias]: capability.effective[alias] ?? {} }, spec.secrets)[alias];
      const problem = modelProblem(alias, section);
      if (problem) throw invalid(problem);

      const pastTurns: PastTurn[] = past.map((m) => ({
        role: m.role,
        body: m.body,
        status: m.status,
        mode: m.mode,
        sources: parseSources(m.sources),
      }));
      const answered = pastTurns.some((t) => t.role === "assistant" && t.status === "done");
      const mode: ChatTurnMode = answered && !input.fullPipeline ? "conversation" : "pipeline";
      let runUid: string;
      let sources: ChatSource[] = [];
      if (mode === "pipeline") {
        ({ uid: runUid } = await pipelines.startRun(actor, {
          target,
          dataset: { kind: "chat", question: input.text },
        }));
      } else {
        const running = await db.pipelineRun.count({ where: { workspaceId: row.workspaceId, status: "running" } });
        if (running >= MAX_RUNNING_PER_WORKSPACE)
          throw conflict(
            `${running} runs are already running in this workspace; wait for one to finish or cancel it, then ask again.`,
          );
        sources = contextSources(pastTurns);
        runUid = await startConversationTurn(
          actor,
          target,
          capability,
          historyMessages(pastTurns, input.text, sources),
          input.text,
        );
      }
      const now = Date.now();
      const [question, answer] = await db.$transaction([
        db.pipelineChatMessage.create({
          data: { uid: randomUUID(), chatId: row.id, role: "user", body: input.text, createdAt: new Date(now) },
        }),
        db.pipelineChatMessage.create({
          data: {
            uid: randomUUID(),
            chatId: row.id,
            role: "assistant",
            body: "",
            status: "running",
            mode,
            runUid,
            sources: JSON.stringify(sources),
            createdAt: new Date(now + 1),
          },
        }),
        db.pipelineChat.update({
          where: { id: row.id },
          data: {
            updatedAt: new Date(),
            ...(row.title === NEW_CHAT_TITLE && past.length === 0 ? { title: titleFromQuestion(input.text) } : {}),
          },
        }),
      ]);
      return { question: turnView(question), answer: turnView(answer), room: runRoom(runUid) };
    },

    async rename(actor: Actor, input: z.infer<typeof chatRenameInput>) {
      const { row } = await loadChat(actor, input.uid, "member");
      ownerOnly(row, actor, "rename it");
      await db.pipelineChat.update({ where: { id: row.id }, data: { title: input.name } });
      return { uid: row.uid, title: input.name };
    },

    async remove(actor: Actor, chatUid: string) {
      const { row, role } = await loadChat(actor, chatUid, "member");
      if (role !== "owner") ownerOnly(row, actor, "delete it (or an owner)");
      // An answer still running stops: nobody will read it.
      const running = await db.pipelineChatMessage.findMany({
        where: { chatId: row.id, status: "running", runUid: { not: null } },
        select: { runUid: true },
      });
      for (const m of running) pipelines.runs.cancel(m.runUid!);
      await db.pipelineChat.delete({ where: { id: row.id } });
      return { ok: true as const };
    },

    async export(actor: Actor, input: z.infer<typeof chatExportInput>) {
      const s = await sessionView(actor, input.uid);
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
    },
  };
}

export type PipelineChatService = ReturnType<typeof createPipelineChatService>;
