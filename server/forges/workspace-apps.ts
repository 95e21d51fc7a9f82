/**
 * GitHub Apps: the environment's (GITHUB_APP_ID …) when this Argus has one, else each workspace's
 * own, entered by an owner in Settings → Integrations and sealed at rest (server/lib/secret-box.ts,
 * purpose "forge-app"). The key and the webhook secret are opened only to sign requests and check
 * deliveries; no API response, log or event carries them.
 *
 * A delivery is checked against the environment's secret, or else against every workspace's: the
 * workspace whose secret signed it is the only one whose installations it may act for.
 */
import { z } from "zod";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { requireRole, type Actor } from "../auth/access.ts";
import { invalid } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { createGitHubApp, type GitHubApp } from "./github/client.ts";
import { signatureMatches } from "./github/signature.ts";
import { forgeEnvShape } from "./settings.ts";

export const saveAppInput = z.object({
  workspaceId: z.string().min(1),
  appId: z.coerce.number({ error: "The App ID is a number (GitHub → the App's settings → App ID)." }).int().positive(),
  privateKey: forgeEnvShape.GITHUB_APP_PRIVATE_KEY.unwrap(),
  webhookSecret: z.string().min(16, "The webhook secret is at least 16 characters.").max(500),
});
export const removeAppInput = z.object({ workspaceId: z.string().min(1) });

/** What Settings shows of the App (never the key or the secret). */
export interface AppView {
  source: "environment" | "workspace" | null;
  appId: number | null;
}

/** Who signed a delivery: the environment's App (null) or a workspace's. */
export type SignedBy = { workspaceId: string | null };

export function createForgeApps(deps: {
  db: Db;
  config: Config;
  log: Logger;
  fetch: typeof globalThis.fetch;
  box: SecretBox;
}) {
  const { db, config, log, box } = deps;
  const env: GitHubApp | undefined = config.forges.githubApp
    ? createGitHubApp({ app: config.forges.githubApp, apiUrl: config.forges.githubApiUrl, fetch: deps.fetch, log })
    : undefined;
  /** One App client per saved credential (its row id and time: a new save makes a new client). */
  const clients = new Map<string, GitHubApp>();

  return {
    env,
    /** The App acting for a workspace's installations, or undefined when there is none. */
    async forWorkspace(workspaceId: string): Promise<GitHubApp | undefined> {
      if (env) return env;
      const cred = await db.forgeAppCredential.findUnique({ where: { workspaceId } });
      if (!cred) return undefined;
      const key = `${cred.id}:${cred.createdAt.getTime()}`;
      let app = clients.get(key);
      if (!app) {
        app = createGitHubApp({
          app: {
            appId: cred.appId,
            privateKey: box.open(cred.sealedPrivateKey),
            webhookSecret: box.open(cred.sealedWebhookSecret),
          },
          apiUrl: config.forges.githubApiUrl,
          fetch: deps.fetch,
          log,
        });
        clients.set(key, app);
      }
      return app;
    },

    /** Whether any App could have signed a delivery (else the intake says none is configured). */
    async any(): Promise<boolean> {
      return env !== undefined || (await db.forgeAppCredential.count()) > 0;
    },

    /** The signer of a delivery, or null when no configured secret signed it. */
    async verify(payload: string, signature: string): Promise<SignedBy | null> {
      if (env) return (await env.verify(payload, signature).catch(() => false)) ? { workspaceId: null } : null;
      const creds = await db.forgeAppCredential.findMany({ select: { workspaceId: true, sealedWebhookSecret: true } });
      for (const c of creds) {
        let secret: string;
        try {
          secret = box.open(c.sealedWebhookSecret);
        } catch {
          continue; // sealed under another AUTH_SECRET: that workspace enters it again
        }
        if (signatureMatches(secret, payload, signature)) return { workspaceId: c.workspaceId };
      }
      return null;
    },

    async view(actor: Actor, workspaceId: string): Promise<AppView> {
      await requireRole(db, actor, workspaceId, "owner");
      if (config.forges.githubApp) return { source: "environment", appId: config.forges.githubApp.appId };
      const cred = await db.forgeAppCredential.findUnique({ where: { workspaceId }, select: { appId: true } });
      return cred ? { source: "workspace", appId: cred.appId } : { source: null, appId: null };
    },

    async save(actor: Actor, input: z.infer<typeof saveAppInput>): Promise<AppView> {
      await requireRole(db, actor, input.workspaceId, "owner");
      if (config.forges.githubApp)
        throw invalid(
          "This Argus has a GitHub App from its environment (GITHUB_APP_ID …); it is used for every workspace.",
        );
      const data = {
        appId: input.appId,
        sealedPrivateKey: box.seal(input.privateKey),
        sealedWebhookSecret: box.seal(input.webhookSecret),
        createdAt: new Date(),
      };
      await db.forgeAppCredential.upsert({
        where: { workspaceId: input.workspaceId },
        create: { workspaceId: input.workspaceId, ...data },
        update: data,
      });
      return { source: "workspace", appId: input.appId };
    },

    async remove(actor: Actor, input: z.infer<typeof removeAppInput>): Promise<void> {
      await requireRole(db, actor, input.workspaceId, "owner");
      // Idempotent: removing an App that is not there leaves things as asked.
      await db.forgeAppCredential.deleteMany({ where: { workspaceId: input.workspaceId } });
    },
  };
}
export type ForgeApps = ReturnType<typeof createForgeApps>;
