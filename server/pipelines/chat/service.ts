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
import type { z } from "zod";
import type { Actor } from "../../auth/access.ts";
import type { Config } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import type { EventBus } from "../../events/bus.ts";
import type { Logger } from "../../logger.ts";
import { runsRoot } from "../workspace/run-dir.ts";
import type { PipelineService } from "../workspace/service.ts";
import { askInSession } from "./ask.ts";
import { chatCapability, type ChatCapability } from "./capability.ts";
import type * as In from "./inputs.ts";
import type { ChatDeps } from "./rows.ts";
import {
  chatPipelines,
  createSession,
  exportSession,
  listSessions,
  removeSession,
  renameSession,
  sessionView,
} from "./sessions.ts";

export function createPipelineChatService(deps: {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  pipelines: PipelineService;
}) {
  // Gallery entries never change in a process; workspace pipelines are keyed by id and version.
  const capabilities = new Map<string, Promise<ChatCapability>>();
  const capabilityOf: ChatDeps["capabilityOf"] = (key, input) => {
    let hit = capabilities.get(key);
    if (!hit) {
      hit = chatCapability(input);
      capabilities.set(key, hit);
      if (capabilities.size > 500) capabilities.delete(capabilities.keys().next().value!);
    }
    return hit;
  };
  const d: ChatDeps = {
    db: deps.db,
    events: deps.events,
    log: deps.log,
    pipelines: deps.pipelines,
    root: runsRoot(deps.config.dataDir),
    capabilityOf,
  };

  return {
    /** The pipelines a chat can use, and the others with the reason they cannot. */
    pipelines: (actor: Actor, workspaceId: string) => chatPipelines(d, actor, workspaceId),
    /** The workspace's sessions, the most recently active first. */
    sessions: (actor: Actor, workspaceId: string) => listSessions(d, actor, workspaceId),
    get: (actor: Actor, chatUid: string) => sessionView(d, actor, chatUid),
    create: (actor: Actor, input: z.infer<typeof In.chatCreateInput>) => createSession(d, actor, input),
    /** Asks the session's pipeline; resolves once the answer's run has started (its room streams it). */
    send: (actor: Actor, input: z.infer<typeof In.chatSendInput>) => askInSession(d, actor, input),
    rename: (actor: Actor, input: z.infer<typeof In.chatRenameInput>) => renameSession(d, actor, input),
    remove: (actor: Actor, chatUid: string) => removeSession(d, actor, chatUid),
    export: (actor: Actor, input: z.infer<typeof In.chatExportInput>) => exportSession(d, actor, input),
  };
}

export type PipelineChatService = ReturnType<typeof createPipelineChatService>;
