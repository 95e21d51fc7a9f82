/**
 * A GitHub for tests: an HTTP server on 127.0.0.1 that answers the REST calls Argus makes, keeps what
 * they wrote (reviews, comments, check runs, resolved threads) for the test to read, and checks EVERY
 * request against GitHub's own OpenAPI description (github-openapi.ts) — an undocumented path, a
 * missing field or a body that does not fit the schema is refused (and listed in `rejected`, which a
 * test expects empty). Responses start from the description's own examples.
 *
 * Auth as GitHub does it: the access-token call needs the App's JWT (RS256, checked against the App's
 * key, `iss` = app id); every other call needs a token it minted. A comment on a line outside the
 * PR's diff gets GitHub's 422. Faults (429 with retry-after, a 422 …) are queued with `failNext`.
 * GraphQL (`POST /graphql`) answers the two operations Argus uses (review threads, resolve) and
 * refuses any other.
 */
import { createHmac, createPublicKey, createVerify, generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { structuredPatch } from "diff";
import { buildZip } from "./zip.ts";
import { gitHubOpenApi } from "./github-openapi.ts";

export type Tree = Record<string, string>;

export interface StandInPull {
  number: number;
  title: string;
  headRef: string;
  headSha: string;
  baseSha: string;
  draft: boolean;
  state: "open" | "closed";
}

export interface PostedReviewComment {
  id: number;
  reviewId: number;
  path: string;
  line: number;
  startLine?: number;
  body: string;
  replies: string[];
  reactions: { id: number; login: string; content: string }[];
}

export interface StandInRepo {
  id: number;
  fullName: string;
  commits: Map<string, Tree>;
  pulls: Map<number, StandInPull>;
  reviews: { id: number; pull: number; commitId: string; body: string; event: string; comments: number[] }[];
  comments: PostedReviewComment[];
  issueComments: { id: number; issue: number; body: string; edits: number }[];
  checkRuns: {
    id: number;
    headSha: string;
    name: string;
    conclusion: string;
    title: string;
    summary: string;
    annotations: unknown[];
    updates: number;
  }[];
  resolvedThreads: Set<number>;
}

interface Fault {
  method: string;
  operationId: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface GitHubStandIn {
  url: string;
  appId: number;
  privateKey: string;
  webhookSecret: string;
  installationId: number;
  repo(fullName: string): StandInRepo;
  addRepo(fullName: string, id: number): StandInRepo;
  /** Records a commit's whole tree; returns its sha. */
  commit(repo: StandInRepo, tree: Tree): string;
  openPull(repo: StandInRepo, pull: Omit<StandInPull, "state" | "draft"> & { draft?: boolean }): StandInPull;
  /** The next matching request gets this answer instead (GitHub's faults). */
  failNext(fault: Fault): void;
  /** Lines GitHub will refuse a comment on although the diff shows them (the diff moved meanwhile). */
  refuseLine(path: string, line: number): void;
  /** Every request as `METHOD operationId` (after the check), in order. */
  requests: string[];
  /** Requests the OpenAPI check refused, with the reason: a test expects none. */
  rejected: string[];
  /** Authorization headers seen (to prove tokens are sent, and are never elsewhere). */
  tokensMinted: string[];
  /** A webhook delivery as GitHub sends it: body, event, delivery id, X-Hub-Signature-256. */
  delivery(event: string, payload: unknown, deliveryId?: string): { body: string; headers: Record<string, string> };
  /**
   * A recorded `issue_comment` / `pull_request_review_comment` delivery (@octokit/webhooks-examples)
   * made to point at this repo and PR, with this comment; a review comment may answer another.
   */
  commentPayload(
    event: "issue_comment" | "pull_request_review_comment",
    repo: StandInRepo,
    pull: StandInPull,
    comment: { body: string; login?: string; bot?: boolean; inReplyTo?: number; onIssue?: boolean },
  ): { payload: Record<string, unknown>; commentId: number };
  /** A reaction on a review comment, as someone on GitHub gives it ("+1", "-1" …). */
  react(repo: StandInRepo, commentId: number, login: string, content: string): void;
  /** A recorded `pull_request` delivery (@octokit/webhooks-examples) made to point at this repo and PR. */
  pullRequestPayload(action: string, repo: StandInRepo, pull: StandInPull): Record<string, unknown>;
  close(): Promise<void>;
}

interface WebhookExample {
  name: string;
  examples: { action?: string; installation?: unknown }[];
}

function patchOf(path: string, before: string | undefined, after: string | undefined): string {
  const p = structuredPatch(path, path, before ?? "", after ?? "", "", "", { context: 3 });
  return p.hunks
    .map(
      (h) =>
        `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.filter((l) => !l.startsWith("\\")).join("\n")}`,
    )
    .join("\n");
}

function diffFiles(base: Tree, head: Tree) {
  const paths = [...new Set([...Object.keys(base), ...Object.keys(head)])].sort();
  return paths.flatMap((path) => {
    const a = base[path];
    const b = head[path];
    if (a === b) return [];
    const status = a === undefined ? "added" : b === undefined ? "removed" : "modified";
    return [{ path, status, patch: patchOf(path, a, b) }];
  });
}

/** New-side line ranges of a patch's hunks. */
function hunkRanges(patch: string): [number, number][] {
  return [...patch.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)].map((m) => {
    const start = Number(m[1]);
    return [start, start + (m[2] === undefined ? 1 : Number(m[2])) - 1];
  });
}

function verifyJwt(token: string, publicKey: ReturnType<typeof createPublicKey>, appId: number): boolean {
  const [h, p, s] = token.split(".");
  if (!h || !p || !s) return false;
  const verifier = createVerify("RSA-SHA256");
  verifier.update(`${h}.${p}`);
  if (!verifier.verify(publicKey, Buffer.from(s, "base64url"))) return false;
  const claims = JSON.parse(Buffer.from(p, "base64url").toString()) as { iss?: unknown; exp?: number };
  return String(claims.iss) === String(appId) && (claims.exp ?? 0) * 1000 > Date.now();
}

export async function startGitHubStandIn(
  opts: { installationId?: number; port?: number } = {},
): Promise<GitHubStandIn> {
  const api = gitHubOpenApi();
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const publicKey = createPublicKey(privateKey);
  const appId = 4242;
  const installationId = opts.installationId ?? 77;
  const webhookSecret = randomBytes(24).toString("hex");
  const repos = new Map<string, StandInRepo>();
  const tokens = new Set<string>();
  const faults: Fault[] = [];
  const refused = new Set<string>();
  let nextId = 1000;
  const requests: string[] = [];
  const rejected: string[] = [];
  const tokensMinted: string[] = [];

  function repoOf(params: Record<string, string>): StandInRepo | undefined {
    return repos.get(`${params.owner}/${params.repo}`);
  }

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };

  function pullJson(repo: StandInRepo, pull: StandInPull) {
    const ex = api.example<Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> }>(
      "pull-request",
    );
    return {
      ...ex,
      number: pull.number,
      title: pull.title,
      state: pull.state,
      draft: pull.draft,
      html_url: `https://github.example/${repo.fullName}/pull/${pull.number}`,
      head: { ...ex.head, ref: pull.headRef, sha: pull.headSha },
      base: { ...ex.base, sha: pull.baseSha },
    };
  }

  function graphql(body: { query?: string; variables?: Record<string, unknown> }) {
    const q = body.query ?? "";
    const v = body.variables ?? {};
    if (/^query\b[\s\S]*reviewThreads/.test(q.trim())) {
      const repo = repos.get(`${String(v.owner)}/${String(v.repo)}`);
      if (!repo || typeof v.number !== "number") return { errors: [{ message: "Could not resolve to a Repository" }] };
      const threads = repo.comments
        .filter((c) => repo.reviews.find((r) => r.id === c.reviewId)?.pull === v.number)
        .map((c) => ({
          id: `PRRT_${c.id}`,
          isResolved: repo.resolvedThreads.has(c.id),
          comments: { nodes: [{ databaseId: c.id }] },
        }));
      return {
        data: {
          repository: {
            pullRequest: { reviewThreads: { nodes: threads, pageInfo: { hasNextPage: false, endCursor: null } } },
          },
        },
      };
    }
    if (/^mutation\b[\s\S]*resolveReviewThread/.test(q.trim()) && typeof v.threadId === "string") {
      const id = Number(v.threadId.replace("PRRT_", ""));
      for (const repo of repos.values())
        if (repo.comments.some((c) => c.id === id)) {
          repo.resolvedThreads.add(id);
          return { data: { resolveReviewThread: { thread: { id: v.threadId, isResolved: true } } } };
        }
      return { errors: [{ message: "Could not resolve to a node" }] };
    }
    return null;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        rejected.push(`${req.method} ${url.pathname}: body is not JSON`);
        return json(res, 400, { message: "Problems parsing JSON" });
      }
    }
    const auth = req.headers.authorization ?? "";
    const token = /^(?:token|bearer) (.+)$/i.exec(auth)?.[1] ?? "";

    if (url.pathname.startsWith("/_archives/")) {
      // The archive's download location (GitHub redirects to codeload); no token needed there.
      const [, , name, sha] = url.pathname.split("/");
      const repo = [...repos.values()].find((r) => r.fullName.replace("/", "-") === name);
      const tree = repo?.commits.get(sha ?? "");
      if (!repo || !tree) return json(res, 404, { message: "Not Found" });
      const top = `${repo.fullName.replace("/", "-")}-${sha!.slice(0, 7)}/`;
      const zip = buildZip(Object.entries(tree).map(([name, data]) => ({ name: top + name, data })));
      res.writeHead(200, { "content-type": "application/zip", "content-length": String(zip.length) });
      return res.end(zip);
    }
    if (url.pathname === "/graphql" && req.method === "POST") {
      requests.push("POST graphql");
      if (!tokens.has(token)) return json(res, 401, { message: "Bad credentials" });
      const answer = graphql(body as { query?: string; variables?: Record<string, unknown> });
      if (!answer) {
        rejected.push(
          `POST /graphql: an operation Argus does not use: ${String((body as { query?: string }).query).slice(0, 80)}`,
        );
        return json(res, 400, { message: "unknown operation" });
      }
      return json(res, 200, answer);
    }

    const check = api.check(req.method ?? "GET", url, body);
    if (!check.ok) {
      rejected.push(`${req.method} ${url.pathname}: ${check.reason}`);
      return json(res, check.status, { message: check.reason, documentation_url: "https://docs.github.com/rest" });
    }
    const { operationId, params } = check.op;
    requests.push(`${req.method} ${operationId}`);
    const at = faults.findIndex((f) => f.method === req.method && f.operationId === operationId);
    if (at >= 0) {
      const [fault] = faults.splice(at, 1);
      return json(res, fault!.status, fault!.body ?? { message: "fault" }, fault!.headers);
    }

    if (operationId === "apps/create-installation-access-token") {
      if (!verifyJwt(token, publicKey, appId))
        return json(res, 401, { message: "A JSON web token could not be decoded" });
      if (Number(params.installation_id) !== installationId) return json(res, 404, { message: "Not Found" });
      const minted = `ghs_${randomBytes(18).toString("hex")}`;
      tokens.add(minted);
      tokensMinted.push(minted);
      return json(res, 201, {
        ...api.example("installation-token"),
        token: minted,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      });
    }
    if (!tokens.has(token)) return json(res, 401, { message: "Bad credentials" });
    const repo = repoOf(params);
    if (!repo) return json(res, 404, { message: "Not Found" });
    const pull = params.pull_number ? repo.pulls.get(Number(params.pull_number)) : undefined;
    if (params.pull_number && !pull) return json(res, 404, { message: "Not Found" });
    const b = (body ?? {}) as Record<string, unknown>;

    switch (operationId) {
      case "pulls/get":
        return json(res, 200, pullJson(repo, pull!));
      case "pulls/list-files": {
        const files = diffFiles(repo.commits.get(pull!.baseSha) ?? {}, repo.commits.get(pull!.headSha) ?? {});
        const ex = api.example<Record<string, unknown>[]>("diff-entry-items")[0]!;
        return json(
          res,
          200,
          files.map((f) => ({ ...ex, filename: f.path, status: f.status, patch: f.patch })),
        );
      }
      case "repos/compare-commits-with-basehead": {
        const [from, to] = (params.basehead ?? "").split("...");
        const a = repo.commits.get(from ?? "");
        const c = repo.commits.get(to ?? "");
        if (!a || !c) return json(res, 404, { message: "Not Found" });
        const ex = api.example<Record<string, unknown>[]>("diff-entry-items")[0]!;
        return json(res, 200, {
          status: "ahead",
          files: diffFiles(a, c).map((f) => ({ ...ex, filename: f.path, status: f.status, patch: f.patch })),
        });
      }
      case "repos/get-content": {
        // `ref` is a query parameter (the check hands back path parameters only).
        const file = repo.commits.get(url.searchParams.get("ref") ?? "")?.[params.path ?? ""];
        if (file === undefined) return json(res, 404, { message: "Not Found" });
        const ex = api.example("content-file-response-if-content-is-a-file");
        const content = Buffer.from(file).toString("base64");
        return json(res, 200, { ...ex, type: "file", encoding: "base64", size: Buffer.byteLength(file), content });
      }
      case "repos/download-zipball-archive": {
        if (!repo.commits.has(params.ref ?? "")) return json(res, 404, { message: "Not Found" });
        res.writeHead(302, { location: `${base}/_archives/${repo.fullName.replace("/", "-")}/${params.ref}` });
        return res.end();
      }
      case "pulls/create-review": {
        const comments = (b.comments ?? []) as { path: string; line?: number; start_line?: number; body: string }[];
        const files = diffFiles(repo.commits.get(pull!.baseSha) ?? {}, repo.commits.get(pull!.headSha) ?? {});
        for (const c of comments) {
          const file = files.find((f) => f.path === c.path);
          const ranges = file ? hunkRanges(file.patch) : [];
          const inDiff = (l: number) => ranges.some(([a, z]) => l >= a && l <= z);
          if (
            c.line === undefined ||
            !inDiff(c.line) ||
            (c.start_line !== undefined && !inDiff(c.start_line)) ||
            refused.has(`${c.path}:${c.line}`)
          )
            return json(res, 422, {
              message: "Unprocessable Entity",
              errors: ["Pull request review thread line must be part of the diff"],
            });
        }
        const review = {
          id: nextId++,
          pull: pull!.number,
          commitId: String(b.commit_id),
          body: String(b.body ?? ""),
          event: String(b.event),
          comments: [] as number[],
        };
        for (const c of comments) {
          const id = nextId++;
          repo.comments.push({
            id,
            reviewId: review.id,
            path: c.path,
            line: c.line!,
            startLine: c.start_line,
            body: c.body,
            replies: [],
            reactions: [],
          });
          review.comments.push(id);
        }
        repo.reviews.push(review);
        return json(res, 200, {
          ...api.example("pull-request-review"),
          id: review.id,
          body: review.body,
          commit_id: review.commitId,
        });
      }
      case "pulls/list-comments-for-review": {
        const review = repo.reviews.find((r) => r.id === Number(params.review_id));
        if (!review) return json(res, 404, { message: "Not Found" });
        const ex = api.example<Record<string, unknown>[]>("pull-request-review-comment-items")[0]!;
        return json(
          res,
          200,
          repo.comments
            .filter((c) => c.reviewId === review.id)
            .map((c) => ({
              ...ex,
              id: c.id,
              path: c.path,
              line: c.line,
              body: c.body,
              pull_request_review_id: review.id,
            })),
        );
      }
      case "pulls/create-reply-for-review-comment": {
        const c = repo.comments.find((x) => x.id === Number(params.comment_id));
        if (!c) return json(res, 404, { message: "Not Found" });
        c.replies.push(String(b.body));
        return json(res, 201, { ...api.example("pull-request-review-comment"), id: nextId++, body: b.body });
      }
      case "reactions/list-for-pull-request-review-comment": {
        const c = repo.comments.find((x) => x.id === Number(params.comment_id));
        if (!c) return json(res, 404, { message: "Not Found" });
        const ex = api.example<Record<string, unknown>[]>("reaction-items")[0]!;
        return json(
          res,
          200,
          c.reactions.map((r) => ({
            ...ex,
            id: r.id,
            content: r.content,
            user: { ...(ex.user as object), login: r.login },
          })),
        );
      }
      case "issues/create-comment": {
        const c = { id: nextId++, issue: Number(params.issue_number), body: String(b.body), edits: 0 };
        repo.issueComments.push(c);
        return json(res, 201, { ...api.example("issue-comment"), id: c.id, body: c.body });
      }
      case "issues/update-comment": {
        const c = repo.issueComments.find((x) => x.id === Number(params.comment_id));
        if (!c) return json(res, 404, { message: "Not Found" });
        c.body = String(b.body);
        c.edits++;
        return json(res, 200, { ...api.example("issue-comment"), id: c.id, body: c.body });
      }
      case "checks/create": {
        const output = (b.output ?? {}) as { title?: string; summary?: string; annotations?: unknown[] };
        const run = {
          id: nextId++,
          headSha: String(b.head_sha),
          name: String(b.name),
          conclusion: String(b.conclusion ?? ""),
          title: output.title ?? "",
          summary: output.summary ?? "",
          annotations: output.annotations ?? [],
          updates: 0,
        };
        repo.checkRuns.push(run);
        return json(res, 201, { ...api.example("check-run"), id: run.id, head_sha: run.headSha, name: run.name });
      }
      case "checks/get": {
        const run = repo.checkRuns.find((r) => r.id === Number(params.check_run_id));
        if (!run) return json(res, 404, { message: "Not Found" });
        return json(res, 200, { ...api.example("check-run"), id: run.id, head_sha: run.headSha, name: run.name });
      }
      case "checks/update": {
        const run = repo.checkRuns.find((r) => r.id === Number(params.check_run_id));
        if (!run) return json(res, 404, { message: "Not Found" });
        const output = (b.output ?? {}) as { title?: string; summary?: string; annotations?: unknown[] };
        Object.assign(run, {
          conclusion: String(b.conclusion ?? run.conclusion),
          title: output.title ?? run.title,
          summary: output.summary ?? run.summary,
          annotations: output.annotations ?? run.annotations,
          updates: run.updates + 1,
        });
        return json(res, 200, { ...api.example("check-run"), id: run.id, head_sha: run.headSha });
      }
      default:
        rejected.push(`${req.method} ${operationId}: documented, but the stand-in does not serve it`);
        return json(res, 501, { message: `stand-in: ${operationId} not served` });
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      rejected.push(`stand-in crashed: ${String(err)}`);
      if (!res.headersSent) json(res, 500, { message: String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookExample[];

  return {
    url: base,
    appId,
    privateKey,
    webhookSecret,
    installationId,
    requests,
    rejected,
    tokensMinted,
    repo: (name) => repos.get(name)!,
    addRepo(fullName, id) {
      const repo: StandInRepo = {
        id,
        fullName,
        commits: new Map(),
        pulls: new Map(),
        reviews: [],
        comments: [],
        issueComments: [],
        checkRuns: [],
        resolvedThreads: new Set(),
      };
      repos.set(fullName, repo);
      return repo;
    },
    commit(repo, tree) {
      const sha = randomBytes(20).toString("hex");
      repo.commits.set(sha, { ...tree });
      return sha;
    },
    openPull(repo, pull) {
      const p: StandInPull = { draft: false, state: "open", ...pull };
      repo.pulls.set(p.number, p);
      return p;
    },
    failNext: (fault) => faults.push(fault),
    refuseLine: (path, line) => refused.add(`${path}:${line}`),
    delivery(event, payload, deliveryId = crypto.randomUUID()) {
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac("sha256", webhookSecret).update(body).digest("hex")}`;
      return {
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/stand-in",
          "x-github-event": event,
          "x-github-delivery": deliveryId,
          "x-github-hook-installation-target-type": "integration",
          "x-hub-signature-256": signature,
        },
      };
    },
    commentPayload(event, repo, pull, comment) {
      const recorded = examples
        .find((e) => e.name === event)!
        .examples.find((e) => e.action === "created" && e.installation) as Record<string, unknown> & {
        comment: Record<string, unknown> & { user: Record<string, unknown> };
        issue?: Record<string, unknown>;
        pull_request?: Record<string, unknown>;
        repository: Record<string, unknown>;
        sender: Record<string, unknown>;
      };
      if (!recorded) throw new Error(`@octokit/webhooks-examples has no ${event}.created delivery from an App`);
      const payload = structuredClone(recorded);
      const commentId = nextId++;
      const login = comment.login ?? "octocat";
      const user = { ...payload.comment.user, login, type: comment.bot ? "Bot" : "User" };
      const { in_reply_to_id: _, ...recordedComment } = payload.comment;
      return {
        commentId,
        payload: {
          ...payload,
          installation: { id: installationId, node_id: "stand-in" },
          repository: {
            ...payload.repository,
            id: repo.id,
            full_name: repo.fullName,
            name: repo.fullName.split("/")[1],
          },
          sender: { ...payload.sender, login, type: user.type },
          comment: {
            ...recordedComment,
            id: commentId,
            body: comment.body,
            user,
            ...(comment.inReplyTo !== undefined ? { in_reply_to_id: comment.inReplyTo } : {}),
          },
          ...(event === "issue_comment"
            ? {
                issue: {
                  ...payload.issue,
                  number: pull.number,
                  ...(comment.onIssue
                    ? { pull_request: undefined }
                    : { pull_request: { url: `${base}/repos/${repo.fullName}/pulls/${pull.number}` } }),
                },
              }
            : { pull_request: { ...payload.pull_request, number: pull.number } }),
        },
      };
    },
    react(repo, commentId, login, content) {
      const c = repo.comments.find((x) => x.id === commentId);
      if (!c) throw new Error(`no review comment ${commentId}`);
      c.reactions.push({ id: nextId++, login, content });
    },
    pullRequestPayload(action, repo, pull) {
      const recorded = examples
        .find((e) => e.name === "pull_request")!
        .examples.find((e) => e.action === action && e.installation) as Record<string, unknown> & {
        pull_request: Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> };
        repository: Record<string, unknown>;
      };
      if (!recorded) throw new Error(`@octokit/webhooks-examples has no pull_request.${action} delivery from an App`);
      const payload = structuredClone(recorded);
      return {
        ...payload,
        number: pull.number,
        installation: { id: installationId, node_id: "stand-in" },
        repository: { ...payload.repository, id: repo.id, full_name: repo.fullName, name: repo.fullName.split("/")[1] },
        pull_request: {
          ...payload.pull_request,
          number: pull.number,
          title: pull.title,
          draft: pull.draft,
          head: { ...payload.pull_request.head, sha: pull.headSha, ref: pull.headRef },
          base: { ...payload.pull_request.base, sha: pull.baseSha },
        },
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
