/**
 * Asking in a session: the first question (or one asked of the whole pipeline again) runs the pipeline
 * as a web run; later ones are follow-ups over the earlier turns (conversation.ts), run as a small
 * pipeline of their own. Resolves once the answer's run has started (its room streams it).
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { requireUser, type Actor } from "../../auth/access.ts";
import { conflict, invalid } from "../../errors.ts";
import {
  NEW_CHAT_TITLE,
  titleFromQuestion,
  type ChatSource,
  type ChatTarget,
  type ChatTurnMode,
} from "../../shared/pipeline-chat.ts";
import { runRoom } from "../../shared/rooms.ts";
import { withSecrets } from "../workspace/parameters.ts";
import { prepareRunDir } from "../workspace/run-dir.ts";
import { MAX_RUNNING_PER_WORKSPACE } from "../workspace/run-launch.ts";
import { chatCapability, modelProblem, type ChatCapability } from "./capability.ts";
import { contextSources, conversationPipeline, historyAlias, historyMessages, type PastTurn } from "./conversation.ts";
import { type ChatDeps, loadChat, ownerOnly, parseSources, targetOf, turnView } from "./rows.ts";
import type { chatSendInput } from "./inputs.ts";
import { settle } from "./sessions.ts";

export async function askInSession(d: ChatDeps, actor: Actor, input: z.infer<typeof chatSendInput>) {
  const { db, pipelines } = d;
  const { row } = await loadChat(db, actor, input.uid, "member");
  ownerOnly(row, actor, "ask in it (start a session of your own)");
  await settle(d, row.id);
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
    ({ uid: runUid } = await pipelines.startRun(actor, { target, dataset: { kind: "chat", question: input.text } }));
  } else {
    const running = await db.pipelineRun.count({ where: { workspaceId: row.workspaceId, status: "running" } });
    if (running >= MAX_RUNNING_PER_WORKSPACE)
      throw conflict(
        `${running} runs are already running in this workspace; wait for one to finish or cancel it, then ask again.`,
      );
    sources = contextSources(pastTurns);
    const messages = historyMessages(pastTurns, input.text, sources);
    runUid = await startConversationTurn(d, actor, target, capability, messages, input.text);
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
}

/** A follow-up: the conversation pipeline over the earlier turns, with the session's generation settings. */
async function startConversationTurn(
  d: ChatDeps,
  actor: Actor,
  target: ChatTarget,
  capability: Extract<ChatCapability, { ok: true }>,
  messages: ReturnType<typeof historyMessages>,
  question: string,
) {
  const spec = await d.pipelines.runSpec(actor, target);
  const alias = capability.generationAlias;
  const plain = (capability.effective[alias] ?? {}) as Record<string, unknown>;
  const withKeys = withSecrets({ [alias]: plain }, spec.secrets)[alias] as Record<string, unknown>;
  const runUid = randomUUID();
  const { dir, file } = prepareRunDir(d.root, runUid, {
    name: spec.name,
    source: conversationPipeline(alias),
    parameters: { [historyAlias(alias)]: { turns: messages }, [alias]: plain },
  });
  const overrides = secretOverrides(alias, plain, withKeys);
  const started = await d.pipelines.runs.start({
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
    d.log.error({ err, run: started.uid }, "chat follow-up: recording its end failed"),
  );
  return started.uid;
}

/** Secrets reach the engine as overrides (whole top-level values of an alias), never in the run's files. */
function secretOverrides(alias: string, plain: Record<string, unknown>, withKeys: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(withKeys))
    if (JSON.stringify(value) !== JSON.stringify(plain[key])) out[key] = value;
  return Object.keys(out).length ? { [alias]: out } : undefined;
}
