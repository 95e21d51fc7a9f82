/**
 * The model a workspace's interactive features use (answers to questions, the pipeline builder's
 * assistant): its first connection as Settings lists them (by name), else the server's environment
 * default when that has a key (or is an OpenAI-compatible server with a base URL); null when there
 * is none.
 */
import type { Db, ProviderConnection } from "../db/client.ts";
import { isUserFacing } from "../errors.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import type { ProviderService } from "./service.ts";

/** The model for a workspace whose first connection the caller already read (Ask Argus reads it with the thread). */
export async function chatModelFor(
  providers: ProviderService,
  workspaceId: string,
  connection: ProviderConnection | null,
): Promise<LlmClientOptions | null> {
  if (connection) return providers.resolveConnection(connection).options;
  try {
    const env = (await providers.resolveForJob(workspaceId, null)).options;
    return env.provider === "openai-compatible" && !env.baseURL ? null : env;
  } catch (err) {
    if (isUserFacing(err)) return null;
    throw err;
  }
}

export async function workspaceChatModel(
  db: Db,
  providers: ProviderService,
  workspaceId: string,
): Promise<LlmClientOptions | null> {
  const c = await db.providerConnection.findFirst({ where: { workspaceId }, orderBy: { name: "asc" } });
  return chatModelFor(providers, workspaceId, c);
}
