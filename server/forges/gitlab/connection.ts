/**
 * GitLab connections: a workspace owner connects a GitLab project or group (its full path) with a
 * project/group access token (scope `api`) and the secret GitLab's webhook sends in X-Gitlab-Token.
 * Both are sealed with AUTH_SECRET (server/lib/secret-box.ts) and never shown again; the secret's
 * HMAC (a key derived from AUTH_SECRET) finds the connection a delivery belongs to. The token is
 * checked against GitLab (through the outbound policy) before anything is stored.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { requireRole, type Actor } from "../../auth/access.ts";
import type { Db } from "../../db/client.ts";
import { isUniqueViolation } from "../../db/client.ts";
import { conflict, invalid, notFound } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import { connectionsWithRepos, type ConnectedRepoView } from "../connected-repos.ts";
import type { Forge } from "../types.ts";
import { createGitLabClient, statusOf } from "./client.ts";
import { gitLabForge } from "./forge.ts";

const namespace = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)*$/, {
    error: "The project's or group's full path, as in its URL: acme/shop or acme/platform.",
  })
  .transform((v) => v.toLowerCase());

export const connectGitLabInput = z.object({
  workspaceId: z.string().min(1),
  namespace,
  token: z.string().trim().min(8, "The access token GitLab showed once (Settings → Access tokens).").max(500),
  webhookSecret: z.string().min(16, "A webhook secret of at least 16 characters.").max(500),
});
export const disconnectGitLabInput = z.object({ workspaceId: z.string().min(1), namespace });

/** What Settings shows of a GitLab connection: never its token or secret. */
export interface GitLabConnectionView {
  forge: "gitlab";
  namespace: string;
  kind: string | null;
  createdAt: Date;
  repos: ConnectedRepoView[];
}

export interface GitLabConnectionsDeps {
  db: Db;
  log: Logger;
  /** GITLAB_URL. */
  url: string;
  authSecret: string;
  fetch: typeof globalThis.fetch;
}

export function createGitLabConnections(deps: GitLabConnectionsDeps) {
  const { db, log } = deps;
  const box = createSecretBox(deps.authSecret, "gitlab-connections");
  const lookupKey = Buffer.from(hkdfSync("sha256", deps.authSecret, "argus", "argus:gitlab-webhook-lookup", 32));
  const lookupHash = (secret: string) => createHmac("sha256", lookupKey).update(secret).digest("base64url");
  const client = (token: string) => createGitLabClient({ url: deps.url, token, fetch: deps.fetch, log });

  /** "project" or "group" when the token can read the path; throws a message naming what is wrong. */
  async function probe(token: string, path: string): Promise<"project" | "group"> {
    const api = client(token);
    try {
      await api.projects.show(path);
      return "project";
    } catch (err) {
      if (statusOf(err) === 401)
        throw invalid("GitLab refused the access token (expired, revoked or mistyped).", "token");
      if (statusOf(err) !== 404 && statusOf(err) !== 403) throw err;
    }
    try {
      await api.groups.show(path);
      return "group";
    } catch (err) {
      if (statusOf(err) === 404 || statusOf(err) === 403)
        throw invalid(`The access token cannot see a project or group at ${path} on ${deps.url}.`, "namespace");
      throw err;
    }
  }

  return {
    async connect(actor: Actor, input: z.infer<typeof connectGitLabInput>) {
      await requireRole(db, actor, input.workspaceId, "owner");
      const kind = await probe(input.token, input.namespace);
      try {
        const row = await db.forgeInstallation.create({
          data: {
            workspaceId: input.workspaceId,
            forge: "gitlab",
            externalId: input.namespace,
            account: kind,
            gitlab: {
              create: {
                tokenCipher: box.seal(input.token),
                webhookSecretCipher: box.seal(input.webhookSecret),
                webhookSecretHash: lookupHash(input.webhookSecret),
              },
            },
          },
        });
        return { forge: "gitlab" as const, namespace: row.externalId, kind, createdAt: row.createdAt };
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict(
            `${input.namespace} is already connected on this Argus, or its webhook secret is another connection's: each connection needs its own secret.`,
          );
        throw err;
      }
    },

    async disconnect(actor: Actor, input: z.infer<typeof disconnectGitLabInput>): Promise<void> {
      await requireRole(db, actor, input.workspaceId, "owner");
      const { count } = await db.forgeInstallation.deleteMany({
        where: { workspaceId: input.workspaceId, forge: "gitlab", externalId: input.namespace },
      });
      if (!count) throw notFound(`${input.namespace} is not connected to this workspace.`);
    },

    /** Members see the connections read-only (Settings → Integrations); only owners change them. */
    async list(actor: Actor, workspaceId: string): Promise<GitLabConnectionView[]> {
      await requireRole(db, actor, workspaceId, "member");
      const rows = await connectionsWithRepos(db, workspaceId, "gitlab");
      return rows.map((r) => ({
        forge: "gitlab",
        namespace: r.externalId,
        kind: r.account,
        createdAt: r.createdAt,
        repos: r.repos,
      }));
    },

    /**
     * The connection whose webhook secret this X-Gitlab-Token is, or null. Found by the secret's HMAC,
     * then the sealed secret itself compared in constant time.
     */
    async bySecret(token: string): Promise<{ installationId: string; namespace: string } | null> {
      if (!token || token.length > 500) return null;
      const row = await db.forgeGitLabSecret.findUnique({
        where: { webhookSecretHash: lookupHash(token) },
        include: { installation: { select: { externalId: true } } },
      });
      if (!row) return null;
      let secret: string;
      try {
        secret = box.open(row.webhookSecretCipher);
      } catch {
        return null; // AUTH_SECRET changed: the connection must be entered again
      }
      const a = Buffer.from(token);
      const b = Buffer.from(secret);
      if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
      return { installationId: row.installationId, namespace: row.installation.externalId };
    },

    /** The forge acting with this connection's token (opened only now, kept in memory only). */
    async forgeFor(installationId: string): Promise<Forge> {
      const row = await db.forgeGitLabSecret.findUnique({ where: { installationId } });
      if (!row) throw invalid("This GitLab connection has no access token: connect it again.");
      return gitLabForge(client(box.open(row.tokenCipher)));
    },
  };
}
export type GitLabConnections = ReturnType<typeof createGitLabConnections>;
