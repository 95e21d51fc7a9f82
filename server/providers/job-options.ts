/** The model a background job (a review, a chat turn) runs with: a connection's or the environment's client options. */
import type { ProviderConnection } from "../db/client.ts";
import { invalid, notFound } from "../errors.ts";
import { PROVIDER_INFO, clientOptionsFromSettings, type LlmClientOptions, type ProviderId } from "../llm/index.ts";
import { loadConnection, optionsFor, type ProviderDeps } from "./connection-rows.ts";

export interface JobModel {
  provider: ProviderId;
  model: string;
  options: LlmClientOptions;
}

/** A connection row already read (and authorized) by the caller, as a job's client options. */
export function resolveConnection(d: ProviderDeps, c: ProviderConnection, model?: string): JobModel {
  return resolved({ ...clientOptionsFromSettings(d.config.llm, c.provider as ProviderId), ...optionsFor(d, c) }, model);
}

function resolved(options: LlmClientOptions, model?: string): JobModel {
  if (model) options.model = model;
  const resolvedModel = options.model ?? PROVIDER_INFO[options.provider].defaultModel;
  if (!resolvedModel) throw invalid("Choose a model for this provider connection (it has no default model).");
  return { provider: options.provider, model: resolvedModel, options: { ...options, model: resolvedModel } };
}

/**
 * What a background job (a review, a chat turn) runs with: a workspace connection, or the server's
 * environment default when `connectionUid` is null. Refuses up front what could never work, so a
 * review does not queue just to fail on a missing key.
 */
export async function resolveForJob(
  d: ProviderDeps,
  workspaceId: string,
  connectionUid: string | null,
  model?: string,
): Promise<JobModel> {
  if (connectionUid) {
    const c = await loadConnection(d.db, connectionUid);
    if (c.workspaceId !== workspaceId) throw notFound("That provider connection does not exist in this workspace.");
    return resolveConnection(d, c, model);
  }
  const options = clientOptionsFromSettings(d.config.llm);
  if (!options.apiKey && options.provider !== "openai-compatible") {
    throw invalid(
      `No API key is configured for ${PROVIDER_INFO[options.provider].label}. Add a model provider in Settings → Model providers, or run the static engine (no LLM).`,
    );
  }
  return resolved(options, model);
}
