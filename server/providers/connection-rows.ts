/**
 * What every part of the provider service shares: its dependencies, a connection row loaded by uid,
 * a row's client options (its key decrypted) and the outbound check of a base URL an owner typed.
 */
import type { Config } from "../config.ts";
import type { Db, ProviderConnection } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import type { OutboundPolicy } from "../net/outbound.ts";
import type { LlmClientOptions, ProviderId } from "../llm/index.ts";

export interface ProviderDeps {
  db: Db;
  config: Config;
  /** Seals the connections' API keys at rest. */
  keys: SecretBox;
  outbound: OutboundPolicy;
}

export async function loadConnection(db: Db, uid: string): Promise<ProviderConnection> {
  const c = await db.providerConnection.findUnique({ where: { uid } });
  if (!c) throw notFound(`No provider connection with id ${uid}. It may have been deleted.`);
  return c;
}

/** Client options for a stored connection (decrypting its key), for tests here and jobs later. */
export function optionsFor(
  { keys, outbound }: ProviderDeps,
  c: Pick<ProviderConnection, "provider" | "baseUrl" | "model" | "apiKeyCipher">,
): LlmClientOptions {
  return {
    provider: c.provider as ProviderId,
    baseURL: c.baseUrl || undefined,
    model: c.model || undefined,
    apiKey: c.apiKeyCipher ? keys.open(c.apiKeyCipher) : undefined,
    fetch: outbound.fetch,
  };
}

/**
 * A saved base URL is a workspace owner's input that the server then requests: the outbound
 * policy decides (public hosts, plus OUTBOUND_ALLOWED_HOSTS and an OLLAMA_URL the operator set),
 * when it is saved and on every request (its fetch checks each hop).
 */
export async function checkBaseUrl(outbound: OutboundPolicy, baseUrl: string | null | undefined): Promise<void> {
  if (!baseUrl) return;
  try {
    await outbound.check(baseUrl, "The base URL");
  } catch (err) {
    throw invalid(err instanceof Error ? err.message : String(err));
  }
}
