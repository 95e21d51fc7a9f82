/** Finding a local Ollama at OLLAMA_URL and the models it offers, for the provider form to pick from. */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { ProviderDeps } from "./connection-rows.ts";

/** A local Ollama, when one answers at OLLAMA_URL: its models, ready to pick. Only an OLLAMA_URL
 * the operator set (or allowed) is looked at: a connection to the default local address would be
 * refused by the outbound policy anyway. */
export async function detectOllama(
  { db, config, outbound }: ProviderDeps,
  fetchImpl: typeof fetch,
  actor: Actor,
  workspaceId: string,
): Promise<{ reachable: boolean; baseUrl: string; models: string[] }> {
  await requireRole(db, actor, workspaceId, "viewer");
  const baseUrl = `${config.ollamaUrl}/v1`;
  const allowed = await outbound.check(baseUrl, "OLLAMA_URL").then(
    () => true,
    () => false,
  );
  if (!allowed) return { reachable: false, baseUrl, models: [] };
  try {
    const res = await fetchImpl(`${config.ollamaUrl}/api/tags`, { signal: AbortSignal.timeout(1500) });
    if (!res.ok) return { reachable: false, baseUrl, models: [] };
    const body = z.object({ models: z.array(z.object({ name: z.string() })).default([]) }).safeParse(await res.json());
    return {
      reachable: true,
      baseUrl,
      models: body.success ? body.data.models.map((m) => m.name).slice(0, 200) : [],
    };
  } catch {
    return { reachable: false, baseUrl, models: [] };
  }
}
