/**
 * The GitHub App as Octokit sees it: one `App` per app id and API base URL (GitHub.com, or GitHub
 * Enterprise Server by GITHUB_API_URL), its installation clients authenticated with short-lived
 * installation tokens (minted and cached by @octokit/auth-app, never logged or stored). Every request
 * goes through the `fetch` handed in (the outbound policy's guarded fetch) and the rate-limit plugin.
 */
import { App } from "@octokit/app";
import { Octokit } from "@octokit/rest";
import type { Logger } from "../../logger.ts";
import type { GitHubAppSettings } from "../settings.ts";
import { rateLimitPlugin } from "./rate-limit.ts";

export type InstallationOctokit = InstanceType<typeof Octokit>;

export interface GitHubClientOptions {
  app: GitHubAppSettings;
  apiUrl: string;
  fetch: typeof globalThis.fetch;
  log: Logger;
}

/** Octokit's own logger would print request details at debug level: keep it to warnings, without data. */
function quietLog(log: Logger) {
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => log.warn({ source: "octokit" }, message),
    error: (message: string) => log.error({ source: "octokit" }, message),
  };
}

export function createGitHubApp(opts: GitHubClientOptions) {
  const ArgusOctokit = Octokit.plugin(rateLimitPlugin(opts.log)).defaults({
    baseUrl: opts.apiUrl,
    request: { fetch: opts.fetch },
    userAgent: "argus-code-review",
    log: quietLog(opts.log),
  });
  const app = new App({
    appId: opts.app.appId,
    privateKey: opts.app.privateKey,
    webhooks: { secret: opts.app.webhookSecret },
    Octokit: ArgusOctokit,
    log: quietLog(opts.log),
  });
  return {
    /** An Octokit acting as the installation (its token minted on first use, refreshed before expiry). */
    installation: (installationId: number) =>
      app.getInstallationOctokit(installationId) as Promise<InstallationOctokit>,
    /** X-Hub-Signature-256 check (HMAC-SHA256, compared in constant time by @octokit/webhooks-methods). */
    verify: (payload: string, signature: string) => app.webhooks.verify(payload, signature),
  };
}
export type GitHubApp = ReturnType<typeof createGitHubApp>;
