/**
 * Model providers a workspace can use: the one configured by environment (read-only here) plus
 * connections added in Settings, whose API keys are encrypted at rest and never leave the server.
 * "Test connection" sends one tiny request and reports the provider's answer or error verbatim.
 *
 * This file keeps the connections' list, default and edits; the other parts live beside it over the
 * shared ProviderDeps (connection-rows.ts): job-options.ts (what a job runs with), connection-test.ts
 * ("Test connection"), ollama.ts (a local Ollama's models).
 */
import { z } from "zod";
import { requireRole, type Actor } from "../auth/access.ts";
import type { Config } from "../config.ts";
import { isUniqueViolation, type Db, type ProviderConnection } from "../db/client.ts";
import { conflict, notFound } from "../errors.ts";
import { createSecretBox } from "../lib/secret-box.ts";
import { createOutboundPolicy, type OutboundPolicy } from "../net/outbound.ts";
import {
  COMPATIBLE_PRESETS,
  MODELS,
  PROVIDER_INFO,
  PROVIDERS,
  clientOptionsFromSettings,
  type LlmClientOptions,
  type ProviderId,
} from "../llm/index.ts";
import { checkBaseUrl, loadConnection, optionsFor, type ProviderDeps } from "./connection-rows.ts";
import { testConnection } from "./connection-test.ts";
import { resolveConnection, resolveForJob, type JobModel } from "./job-options.ts";
import { detectOllama } from "./ollama.ts";
import type { saveConnectionInput, testConnectionInput, TestResult } from "./inputs.ts";

export { connectionFields, saveConnectionInput, testConnectionInput, type TestResult } from "./inputs.ts";

export interface ConnectionView {
  uid: string | null;
  source: "environment" | "workspace";
  name: string;
  provider: ProviderId;
  baseUrl: string | null;
  model: string | null;
  hasKey: boolean;
  apiKeyHint: string | null;
  /** The workspace's default (marked by an owner). */
  isDefault: boolean;
  /** Whether it can answer at all: a key, or an OpenAI-compatible server (keyless local ones are fine). */
  usable: boolean;
}

/** A connection that can be sent requests: a key, or an OpenAI-compatible server at a base URL. */
export const isUsable = (c: { provider: string; hasKey: boolean; baseUrl: string | null }) =>
  c.hasKey || (c.provider === "openai-compatible" && !!c.baseUrl);

/** How lists and pages name a connection: its name and the model it runs. */
export const connectionLabel = (c: { name: string; model: string | null }) =>
  c.model ? `${c.name} · ${c.model}` : c.name;

/** How the server's environment default is named wherever a connection's name is shown. */
export const ENVIRONMENT_CONNECTION_NAME = "Server default (environment)";

/** Settings' order: the default first, then by name. */
export const connectionOrder = [{ isDefault: "desc" as const }, { name: "asc" as const }];

/** A stored connection as Settings lists it (its key never leaves the server: only whether it has one). */
function view(c: ProviderConnection): ConnectionView {
  const v = {
    uid: c.uid,
    source: "workspace" as const,
    name: c.name,
    provider: c.provider as ProviderId,
    baseUrl: c.baseUrl,
    model: c.model ?? PROVIDER_INFO[c.provider as ProviderId]?.defaultModel ?? null,
    hasKey: !!c.apiKeyCipher,
    apiKeyHint: c.apiKeyHint,
    isDefault: c.isDefault,
  };
  return { ...v, usable: isUsable(v) };
}

/** The server's environment default, listed after the workspace's own connections. */
function environmentView(config: Config): ConnectionView {
  const opts = clientOptionsFromSettings(config.llm);
  const v = {
    uid: null,
    source: "environment" as const,
    name: ENVIRONMENT_CONNECTION_NAME,
    provider: opts.provider,
    baseUrl: opts.baseURL ?? null,
    model: opts.model ?? PROVIDER_INFO[opts.provider].defaultModel ?? null,
    hasKey: !!opts.apiKey,
    apiKeyHint: null,
    isDefault: false,
  };
  return { ...v, usable: isUsable(v) };
}

export function createProviderService(
  db: Db,
  config: Config,
  authSecret: string,
  fetchImpl: typeof fetch = fetch,
  outbound: OutboundPolicy = createOutboundPolicy({ allow: config.outbound.allow }),
) {
  const keys = createSecretBox(authSecret, "provider-keys");
  const d: ProviderDeps = { db, config, keys, outbound };

  return {
    /**
     * What a background job (a review, a chat turn) runs with: a workspace connection, or the server's
     * environment default when `connectionUid` is null. Refuses up front what could never work, so a
     * review does not queue just to fail on a missing key.
     */
    resolveForJob: (workspaceId: string, connectionUid: string | null, model?: string): Promise<JobModel> =>
      resolveForJob(d, workspaceId, connectionUid, model),
    /** A connection row already read (and authorized) by the caller, as a job's client options. */
    resolveConnection: (c: ProviderConnection, model?: string): JobModel => resolveConnection(d, c, model),

    catalog() {
      return {
        providers: PROVIDERS.map((id) => ({ ...PROVIDER_INFO[id], models: MODELS.filter((m) => m.provider === id) })),
        compatiblePresets: COMPATIBLE_PRESETS,
      };
    },

    async list(actor: Actor, workspaceId: string): Promise<ConnectionView[]> {
      await requireRole(db, actor, workspaceId, "viewer");
      const rows = await db.providerConnection.findMany({ where: { workspaceId }, orderBy: connectionOrder });
      return [...rows.map(view), environmentView(config)];
    },

    /**
     * The connection reviews, Ask and pipelines use unless someone picks another: the one marked
     * default, else the first by name, else the server's environment default when it can answer
     * (a keyless one never counts); null when the workspace has no usable model.
     */
    async workspaceDefault(actor: Actor, workspaceId: string): Promise<ConnectionView | null> {
      await requireRole(db, actor, workspaceId, "viewer");
      const row = await db.providerConnection.findFirst({ where: { workspaceId }, orderBy: connectionOrder });
      if (row) return view(row);
      const env = environmentView(config);
      return env.usable ? env : null;
    },

    /** Marks one connection as the workspace's default (owners); `uid` null clears the mark. */
    async setDefault(actor: Actor, input: { workspaceId: string; uid: string | null }): Promise<void> {
      await requireRole(db, actor, input.workspaceId, "owner");
      if (input.uid) {
        const c = await loadConnection(db, input.uid);
        if (c.workspaceId !== input.workspaceId) throw notFound(`No provider connection with id ${input.uid}.`);
      }
      await db.$transaction([
        db.providerConnection.updateMany({ where: { workspaceId: input.workspaceId }, data: { isDefault: false } }),
        ...(input.uid ? [db.providerConnection.update({ where: { uid: input.uid }, data: { isDefault: true } })] : []),
      ]);
    },

    async save(actor: Actor, input: z.infer<typeof saveConnectionInput>): Promise<ConnectionView> {
      await requireRole(db, actor, input.workspaceId, "owner");
      await checkBaseUrl(outbound, input.baseUrl);
      const data = {
        name: input.name,
        provider: input.provider,
        baseUrl: input.baseUrl || null,
        model: input.model || null,
        ...(input.apiKey ? { apiKeyCipher: keys.seal(input.apiKey), apiKeyHint: input.apiKey.slice(-4) } : {}),
        ...(input.clearKey && !input.apiKey ? { apiKeyCipher: null, apiKeyHint: null } : {}),
      };
      try {
        const existing = await db.providerConnection.findUnique({ where: { uid: input.uid } });
        if (existing && existing.workspaceId !== input.workspaceId)
          throw notFound(`No provider connection with id ${input.uid}.`);
        const saved = existing
          ? await db.providerConnection.update({ where: { id: existing.id }, data })
          : await db.providerConnection.create({ data: { ...data, uid: input.uid, workspaceId: input.workspaceId } });
        return view(saved);
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(`A connection named "${input.name}" already exists in this workspace. Pick another name.`);
        throw err;
      }
    },

    async remove(actor: Actor, uid: string): Promise<void> {
      const c = await loadConnection(db, uid);
      await requireRole(db, actor, c.workspaceId, "owner");
      await db.providerConnection.delete({ where: { id: c.id } });
    },

    /** Tests a saved connection, the environment's, or a draft from the form (its key, or the saved one's). */
    test: (actor: Actor, input: z.infer<typeof testConnectionInput>): Promise<TestResult> =>
      testConnection(d, actor, input),

    /** A local Ollama, when one answers at OLLAMA_URL: its models, ready to pick. Only an OLLAMA_URL
     * the operator set (or allowed) is looked at: a connection to the default local address would be
     * refused by the outbound policy anyway. */
    detectOllama: (
      actor: Actor,
      workspaceId: string,
    ): Promise<{ reachable: boolean; baseUrl: string; models: string[] }> =>
      detectOllama(d, fetchImpl, actor, workspaceId),

    /** Client options for a stored connection (decrypting its key), for tests here and jobs later. */
    optionsFor: (c: Pick<ProviderConnection, "provider" | "baseUrl" | "model" | "apiKeyCipher">): LlmClientOptions =>
      optionsFor(d, c),
  };
}

export type ProviderService = ReturnType<typeof createProviderService>;
