/**
 * "Test connection": one tiny request to a saved connection, the environment's, or a draft from the
 * form, reporting the provider's answer or its error verbatim.
 */
import type { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import { invalid } from "../errors.ts";
import { clientOptionsFromSettings, createLlmClient, userText, type LlmClientOptions } from "../llm/index.ts";
import { checkBaseUrl, loadConnection, optionsFor, type ProviderDeps } from "./connection-rows.ts";
import type { TestResult, testConnectionInput } from "./inputs.ts";

const TEST_TIMEOUT_MS = 20_000;

async function runTest(options: LlmClientOptions): Promise<TestResult> {
  const started = Date.now();
  try {
    const client = createLlmClient({
      ...options,
      maxRetries: 0,
      requestTimeoutMs: TEST_TIMEOUT_MS,
      idleTimeoutMs: TEST_TIMEOUT_MS,
      maxTokens: 16,
    });
    const answer = await client.complete({
      messages: [userText("Reply with the single word OK.")],
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    });
    return { ok: true, model: client.model, latencyMs: Date.now() - started, reply: answer.text.slice(0, 200) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err), latencyMs: Date.now() - started };
  }
}

/** Tests a saved connection, the environment's, or a draft from the form (its key, or the saved one's). */
export async function testConnection(
  d: ProviderDeps,
  actor: Actor,
  input: z.infer<typeof testConnectionInput>,
): Promise<TestResult> {
  const { db } = d;
  if ("environment" in input) {
    await requireRole(db, actor, input.workspaceId, "owner");
    return runTest(clientOptionsFromSettings(d.config.llm));
  }
  if (!("provider" in input)) {
    const c = await loadConnection(db, input.uid);
    await requireRole(db, actor, c.workspaceId, "owner");
    return runTest(optionsFor(d, c));
  }
  await requireRole(db, actor, input.workspaceId, "owner");
  await checkBaseUrl(d.outbound, input.baseUrl);
  let apiKeyCipher: string | null = null;
  if (!input.apiKey && input.uid) {
    const saved = await db.providerConnection.findUnique({ where: { uid: input.uid } });
    if (saved && saved.workspaceId !== input.workspaceId)
      throw invalid("That connection belongs to another workspace.");
    apiKeyCipher = saved?.apiKeyCipher ?? null;
  }
  const options = optionsFor(d, {
    provider: input.provider,
    baseUrl: input.baseUrl ?? null,
    model: input.model ?? null,
    apiKeyCipher,
  });
  return runTest(input.apiKey ? { ...options, apiKey: input.apiKey } : options);
}
