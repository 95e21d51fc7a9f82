/**
 * What a run may do and use, from who started it where: a command-line run works as the operator; a
 * web-app run needs a member of its workspace, reads that workspace's knowledge bases and keeps memory
 * per user, reaches public hosts only, and starts no process unless the policy lets its starter.
 */
import { requireRole, requireUser } from "../auth/access.ts";
import type { Role } from "../auth/roles.ts";
import { invalid } from "../errors.ts";
import { knowledgeBasesForRun } from "../knowledge/pipeline-access.ts";
import { createOutboundPolicy } from "../net/outbound.ts";
import type { RunOptions } from "./engine/run.ts";
import { dbMemoryStore } from "./memory-db.ts";
import { processRefusal } from "./process-policy.ts";
import type { RunServiceDeps, StartRunInput } from "./run-input.ts";
import type { RunContext } from "./servers/contract.ts";

/** What the run may do and use, from who started it where (throws 401/403 for the app). */
export async function runScope(
  deps: RunServiceDeps,
  input: StartRunInput,
): Promise<{ createdById?: string; engine: Partial<RunOptions> }> {
  const { db } = deps;
  const origin = input.origin ?? "cli";
  let role: Role | undefined;
  let userId = input.createdById;
  if (origin === "app") {
    const actor = requireUser(input.actor ?? null);
    if (!input.workspaceId) throw invalid("A pipeline run from the web app needs the workspace it runs in.");
    role = await requireRole(db, actor, input.workspaceId, "member");
    userId = actor.userId;
  }
  const refuseProcesses = processRefusal(origin, { allowProcesses: deps.allowProcesses ?? false, role });
  const context: RunContext = {};
  if (input.workspaceId && deps.searchIndexes)
    context.knowledge = knowledgeBasesForRun({ db, searchIndexes: deps.searchIndexes }, input.workspaceId);
  if (origin === "app" && input.workspaceId && userId)
    context.memory = dbMemoryStore(db, { workspaceId: input.workspaceId, userId });
  // A web-app run's parameters are a user's input: its requests reach public hosts only, its files
  // stay in its folder (the default of run-files.ts), and the server's keys are never lent to it.
  if (origin === "app") context.outbound = deps.outbound ?? createOutboundPolicy();
  else {
    context.fileAccess = "operator";
    if (deps.operatorEnv) context.operatorEnv = deps.operatorEnv;
  }
  // Model steps that name no model use the workspace's connection (servers/workspace-model.ts).
  if (origin === "app" && input.workspaceId && deps.workspaceModel)
    context.model = await deps.workspaceModel(input.workspaceId);
  return {
    ...(userId ? { createdById: userId } : {}),
    // The app's trace shows tokens per step; the CLI keeps UltraRAG's step_end as it is.
    engine: {
      context,
      ...(origin === "app" ? { stepTokens: true } : {}),
      ...(refuseProcesses ? { refuseProcesses } : {}),
    },
  };
}
