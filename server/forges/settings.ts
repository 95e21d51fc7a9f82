/**
 * The forge settings from the environment, declared next to their code (as server/llm does) and
 * spread into server/config.ts's one schema — nothing here reads process.env.
 *
 * A GitHub App is configured by three variables that only make sense together (app id, private key,
 * webhook secret); GITHUB_API_URL points at GitHub Enterprise Server's API (https://ghes.example.com/api/v3).
 */
import { z } from "zod";

const httpUrl = (example: string) =>
  z.url({ protocol: /^https?$/, error: `an http(s) URL such as ${example}` }).transform((u) => u.replace(/\/+$/, ""));

/** Their values are never repeated in a configuration error. */
export const FORGE_SECRET_VARIABLES = ["GITHUB_APP_PRIVATE_KEY", "GITHUB_WEBHOOK_SECRET"];

export const forgeEnvShape = {
  /** The GitHub App's numeric id (GitHub → Settings → Developer settings → GitHub Apps → the app). */
  GITHUB_APP_ID: z.coerce.number({ error: "the GitHub App's numeric id" }).int("a whole number").positive().optional(),
  /** The App's private key (PEM). Newlines may be written as \n (one-line .env files). */
  GITHUB_APP_PRIVATE_KEY: z
    .string()
    .transform((v) => v.replace(/\\n/g, "\n"))
    .refine((v) => /-----BEGIN (RSA )?PRIVATE KEY-----/.test(v), {
      error: "the App's private key in PEM form (-----BEGIN RSA PRIVATE KEY----- …)",
    })
    .optional(),
  /** The secret GitHub signs webhook deliveries with (X-Hub-Signature-256). */
  GITHUB_WEBHOOK_SECRET: z.string().min(16, "a secret of at least 16 characters").optional(),
  /** GitHub's REST API; GitHub Enterprise Server: https://<host>/api/v3. */
  GITHUB_API_URL: httpUrl("https://api.github.com").default("https://api.github.com"),
  /** A self-managed GitLab's base URL. */
  GITLAB_URL: httpUrl("https://gitlab.com").default("https://gitlab.com"),
};

type ForgeEnv = z.infer<z.ZodObject<typeof forgeEnvShape>>;

export interface GitHubAppSettings {
  appId: number;
  privateKey: string;
  webhookSecret: string;
}

export interface ForgeSettings {
  /** The environment's GitHub App, or undefined when none is configured. */
  githubApp: GitHubAppSettings | undefined;
  githubApiUrl: string;
  gitlabUrl: string;
}

/** The settings, or the problems (each naming its variable) when the App's variables are half set. */
export function forgeSettingsFromEnv(env: ForgeEnv): { settings: ForgeSettings; problems: string[] } {
  const app = [env.GITHUB_APP_ID, env.GITHUB_APP_PRIVATE_KEY, env.GITHUB_WEBHOOK_SECRET];
  const set = app.filter((v) => v !== undefined).length;
  const problems =
    set > 0 && set < 3
      ? [
          "GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY and GITHUB_WEBHOOK_SECRET: expected all three (a GitHub App) or none, " +
            `got only ${["GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY", "GITHUB_WEBHOOK_SECRET"].filter((_, i) => app[i] !== undefined).join(", ")}`,
        ]
      : [];
  return {
    settings: {
      githubApp:
        set === 3
          ? {
              appId: env.GITHUB_APP_ID!,
              privateKey: env.GITHUB_APP_PRIVATE_KEY!,
              webhookSecret: env.GITHUB_WEBHOOK_SECRET!,
            }
          : undefined,
      githubApiUrl: env.GITHUB_API_URL,
      gitlabUrl: env.GITLAB_URL,
    },
    problems,
  };
}
