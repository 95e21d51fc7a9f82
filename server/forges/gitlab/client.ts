/**
 * GitLab's REST API (v4) through @gitbeaker/core's resources, with Argus's own request handler in
 * place of @gitbeaker/rest's: that one calls the global `fetch` (no way to hand it another), so the
 * outbound policy would be bypassed, and it retries a 429 ten times within ~4 minutes' worth of
 * milliseconds without reading `Retry-After`. This handler sends every request through the `fetch`
 * handed in (server/net's guarded fetch) and waits out a 429 as GitLab asks.
 *
 * The token goes as `Authorization: Bearer` (GitLab takes project/group access tokens so): the
 * outbound policy drops that header on a redirect to another origin. It is never in a URL, a log line
 * or an error message (errors name the method, the path and GitLab's own message).
 */
import {
  Commits,
  Groups,
  MergeRequestDiscussions,
  MergeRequestNotes,
  MergeRequests,
  Projects,
  Repositories,
  RepositoryFiles,
} from "@gitbeaker/core";
import { createRequesterFn } from "@gitbeaker/requester-utils";
import type { Logger } from "../../logger.ts";

const MAX_ATTEMPTS = 4;
const MAX_WAIT_MS = 120_000;
/** A 429 without Retry-After or RateLimit-Reset: wait this long (GitLab's limits are per minute). */
const DEFAULT_WAIT_MS = 60_000;

/** A request GitLab answered with an error status (the message is GitLab's, never a header). */
export class GitLabHttpError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    description: string,
  ) {
    super(`GitLab answered ${status} to ${method} ${path}${description ? `: ${description.slice(0, 300)}` : ""}`);
    this.name = "GitLabHttpError";
  }
}

export const statusOf = (err: unknown): number | undefined => (err instanceof GitLabHttpError ? err.status : undefined);

/** How long a 429 asks to wait (Retry-After in seconds or as a date, else RateLimit-Reset), in ms. */
export function gitLabWaitMs(headers: Headers, now = Date.now()): number {
  const retryAfter = headers.get("retry-after");
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = Number(headers.get("ratelimit-reset"));
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now);
  return DEFAULT_WAIT_MS;
}

async function bodyOf(response: Response, asStream: boolean): Promise<unknown> {
  if (asStream) return response.body;
  if (response.status === 204) return null;
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (type === "application/json") return (await response.json()) || {};
  if (type.startsWith("text/")) return response.text();
  return response.blob();
}

async function describe(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const json = JSON.parse(text) as { message?: unknown; error?: unknown };
    const m = json.message ?? json.error ?? "";
    return typeof m === "string" ? m : JSON.stringify(m);
  } catch {
    return text.slice(0, 300);
  }
}

interface HandlerOptions {
  prefixUrl?: string;
  searchParams?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit;
  asStream?: boolean;
  signal?: AbortSignal;
}

export interface GitLabClientOptions {
  /** The GitLab instance (GITLAB_URL): https://gitlab.com or a self-managed host. */
  url: string;
  token: string;
  fetch: typeof globalThis.fetch;
  log: Logger;
  sleep?: (ms: number) => Promise<void>;
}

export function createGitLabClient(opts: GitLabClientOptions) {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  async function handle(endpoint: string, options: HandlerOptions = {}) {
    const { prefixUrl = "", searchParams, method = "GET", headers, body, asStream = false, signal } = options;
    const url = new URL(endpoint, prefixUrl.endsWith("/") ? prefixUrl : `${prefixUrl}/`);
    url.search = searchParams ?? "";
    const where = url.pathname.replace(/^.*\/api\/v4\//, "");
    for (let attempt = 1; ; attempt++) {
      const response = await opts.fetch(url, { method, headers, body, ...(signal ? { signal } : {}) });
      if (response.ok) {
        return {
          body: await bodyOf(response, asStream),
          headers: Object.fromEntries(response.headers.entries()),
          status: response.status,
        };
      }
      if (response.status === 429) {
        const wait = gitLabWaitMs(response.headers);
        await response.body?.cancel();
        if (attempt < MAX_ATTEMPTS && wait <= MAX_WAIT_MS) {
          opts.log.warn(
            { method, route: where, waitMs: wait, attempt },
            "GitLab rate limit: waiting as asked before trying again",
          );
          await sleep(wait);
          continue;
        }
      }
      throw new GitLabHttpError(response.status, method, where, await describe(response));
    }
  }

  const requesterFn = createRequesterFn(
    (_, requestOptions) => Promise.resolve(requestOptions),
    handle as Parameters<typeof createRequesterFn>[1],
  );
  const common = {
    host: opts.url,
    oauthToken: opts.token,
    requesterFn,
    // GitLab's own limits are honoured above; no client-side queue on top of them.
    rateLimits: {},
  };
  return {
    mergeRequests: new MergeRequests(common),
    discussions: new MergeRequestDiscussions(common),
    notes: new MergeRequestNotes(common),
    repositories: new Repositories(common),
    repositoryFiles: new RepositoryFiles(common),
    commits: new Commits(common),
    projects: new Projects(common),
    groups: new Groups(common),
  };
}
export type GitLabClient = ReturnType<typeof createGitLabClient>;
