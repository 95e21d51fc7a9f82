/**
 * The model a workspace's features use unless someone picks another (answers to questions, the
 * pipeline builder's assistant, pipeline runs' model steps): the connection an owner marked default,
 * else its first connection by name, else the server's environment default when that can answer (a
 * key, or an OpenAI-compatible server with a base URL — a keyless default is never used); null when
 * there is none.
 */
import type { Db, ProviderConnection } from "../db/client.ts";
import { isUserFacing } from "../errors.ts";
import type { LlmClientOptions } from "../llm/index.ts";
import { connectionLabel, connectionOrder, ENVIRONMENT_CONNECTION_NAME, type ProviderService } from "./service.ts";

/** The model for a workspace whose default connection the caller already read (Ask Argus reads it with the thread). */
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

/** The workspace's default connection row (the marked one, else the first by name), or null. */
export const defaultConnection = (db: Db, workspaceId: string) =>
  db.providerConnection.findFirst({ where: { workspaceId }, orderBy: connectionOrder });

export async function workspaceChatModel(
  db: Db,
  providers: ProviderService,
  workspaceId: string,
): Promise<LlmClientOptions | null> {
  return chatModelFor(providers, workspaceId, await defaultConnection(db, workspaceId));
}

/** The workspace's model as a pipeline run uses it: the client options and the name the run page shows. */
export async function workspaceRunModel(
  db: Db,
  providers: ProviderService,
  workspaceId: string,
): Promise<{ label: string; options: LlmClientOptions } | null> {
  const connection = await defaultConnection(db, workspaceId);
  const options = await chatModelFor(providers, workspaceId, connection);
  if (!options) return null;
  const name = connection?.name ?? ENVIRONMENT_CONNECTION_NAME;
  return { label: connectionLabel({ name, model: options.model ?? null }), options };
}
