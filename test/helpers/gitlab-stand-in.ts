/**
 * A GitLab for tests: an HTTP server on 127.0.0.1 that answers the REST (v4) calls Argus makes, keeps
 * what they wrote (discussions, notes, commit statuses, resolved discussions) for the test to read,
 * and checks EVERY request against the shape GitLab documents for its endpoint (docs.gitlab.com/api:
 * merge requests, merge request diffs and versions, repository compare and archive, discussions,
 * notes, commit statuses, projects, groups) written here as zod schemas — an unknown endpoint, a
 * missing or unknown parameter, a wrong type is refused with GitLab's 400 and listed in `rejected`
 * (a test expects it empty).
 *
 * Auth as GitLab takes an access token: `Authorization: Bearer <token>` or `PRIVATE-TOKEN`. A
 * discussion positioned off the diff's added lines, or on a diff version that does not exist, or with
 * a `line_range` whose line codes are not lines of that diff ending on its `new_line`, gets GitLab's
 * 400. Faults (429 with Retry-After …) are queued with `failNext`. A person's note on an MR
 * (`userNote`) is a discussion here, and its Note Hook payload is what the test delivers.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { structuredPatch } from "diff";
import { z } from "zod";
import { buildZip } from "./zip.ts";

export type Tree = Record<string, string>;

/** The user Argus's access token acts as (GitLab names a project access token's bot user so). */
export const ARGUS_USER = "project_310_bot_5a7c1e";

export interface GitLabMr {
  iid: number;
  title: string;
  sourceBranch: string;
  draft: boolean;
  state: "opened" | "closed" | "merged";
  baseSha: string;
  /** Every head this MR had, oldest first (GitLab's diff versions). */
  heads: string[];
}

export interface GitLabNote {
  id: number;
  body: string;
  /** Who wrote it: Argus's token user unless a person's note (userNote). */
  author: string;
}

export interface GitLabDiscussion {
  id: string;
  mr: number;
  /** As GitLab read it: position[…] form fields (line_range[start][…] nested), numbers as numbers. */
  position: Record<string, unknown> | null;
  notes: GitLabNote[];
  resolved: boolean;
}

export interface GitLabProject {
  id: number;
  path: string;
  commits: Map<string, Tree>;
  mrs: Map<number, GitLabMr>;
  discussions: GitLabDiscussion[];
  /** MR notes outside discussions' diff positions (the summary), with their edit count. */
  notes: { id: number; mr: number; body: string; edits: number }[];
  statuses: { id: number; sha: string; state: string; name: string; description?: string; targetUrl?: string }[];
}

interface Fault {
  method: string;
  route: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface GitLabStandIn {
  url: string;
  token: string;
  webhookSecret: string;
  addProject(path: string, id: number): GitLabProject;
  addGroup(path: string): void;
  commit(project: GitLabProject, tree: Tree): string;
  openMr(
    project: GitLabProject,
    mr: { iid: number; title: string; sourceBranch: string; baseSha: string; headSha: string; draft?: boolean },
  ): GitLabMr;
  /** A push to the MR's source branch: a new head, a new diff version. */
  push(mr: GitLabMr, headSha: string): void;
  /** The next request to this route (`METHOD route-name`) gets this answer instead. */
  failNext(fault: Fault): void;
  /** A line GitLab will refuse a discussion on although the diff shows it (the diff moved meanwhile). */
  refuseLine(path: string, line: number): void;
  /** Every request as `METHOD route-name`, in order (after the shape check). */
  requests: string[];
  rejected: string[];
  /** A webhook delivery as GitLab sends it: JSON body, X-Gitlab-Event, X-Gitlab-Event-UUID, X-Gitlab-Token. */
  delivery(
    event: string,
    payload: unknown,
    opts?: { uuid?: string; token?: string },
  ): { body: string; headers: Record<string, string> };
  /**
   * A person's note on the MR — a new discussion, or a reply in `discussionId` — and its Note Hook
   * payload (test/fixtures/gitlab/note.merge_request.json made to point at it).
   */
  userNote(
    project: GitLabProject,
    mr: GitLabMr,
    note: { body: string; username: string; discussionId?: string },
  ): Record<string, unknown>;
  /** The Note Hook payload GitLab sends for a note already in a discussion (Argus's own, say). */
  notePayload(
    project: GitLabProject,
    mr: GitLabMr,
    discussion: GitLabDiscussion,
    note: GitLabNote,
  ): Record<string, unknown>;
  /** A Merge Request Hook payload (test/fixtures/gitlab) made to point at this project and MR. */
  mergeRequestPayload(
    project: GitLabProject,
    mr: GitLabMr,
    action: "open" | "reopen" | "update" | "close" | "merge",
    extra?: { oldrev?: string; changes?: Record<string, unknown> },
  ): Record<string, unknown>;
  close(): Promise<void>;
}

// ── GitLab's documented request shapes (docs.gitlab.com/api/…) ─────────────────────────────────────

const sha = z.string().regex(/^[0-9a-f]{7,64}$/);
const int = z.coerce.number().int();
const bool = z.enum(["true", "false"]);
const page = { page: int.positive().optional(), per_page: int.positive().max(100).optional() };

/** One end of a multi-line position (docs.gitlab.com/api/discussions: parameters for multiline comments). */
const lineRangeEnd = z.strictObject({
  line_code: z.string().regex(/^[0-9a-f]{40}_\d+_\d+$/),
  type: z.enum(["new", "old"]),
  old_line: int.positive().optional(),
  new_line: int.positive().optional(),
});

/** Each endpoint Argus may call: method, path, query and body as documented; nothing else passes. */
const ROUTES = [
  {
    name: "projects/show",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)$/,
    query: z.strictObject({
      license: bool.optional(),
      statistics: bool.optional(),
      with_custom_attributes: bool.optional(),
    }),
  },
  {
    name: "groups/show",
    method: "GET",
    path: /^\/groups\/(?<id>[^/]+)$/,
    query: z.strictObject({ with_custom_attributes: bool.optional(), with_projects: bool.optional() }),
  },
  {
    name: "merge_requests/show",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)$/,
    query: z.strictObject({
      include_diverged_commits_count: bool.optional(),
      include_rebase_in_progress: bool.optional(),
      render_html: bool.optional(),
    }),
  },
  {
    name: "merge_requests/diffs",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/diffs$/,
    query: z.strictObject({ ...page, unidiff: bool.optional() }),
  },
  {
    name: "merge_requests/versions",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/versions$/,
    query: z.strictObject({}),
  },
  {
    name: "merge_requests/version",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/versions\/(?<version>\d+)$/,
    query: z.strictObject({ unidiff: bool.optional() }),
  },
  {
    name: "repository/compare",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/repository\/compare$/,
    query: z.strictObject({
      from: z.string().min(1),
      to: z.string().min(1),
      from_project_id: int.optional(),
      straight: bool.optional(),
      unidiff: bool.optional(),
    }),
  },
  {
    name: "repository/archive",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/repository\/archive\.zip$/,
    query: z.strictObject({
      sha: z.string().min(1).optional(),
      path: z.string().optional(),
      include_lfs_blobs: bool.optional(),
      exclude_paths: z.string().optional(),
    }),
  },
  {
    name: "repository/files/raw",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/repository\/files\/(?<file>[^/]+)\/raw$/,
    query: z.strictObject({ ref: z.string().min(1), lfs: bool.optional() }),
  },
  {
    name: "discussions/list",
    method: "GET",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/discussions$/,
    query: z.strictObject(page),
  },
  {
    name: "discussions/create",
    method: "POST",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/discussions$/,
    query: z.strictObject({}),
    body: z.strictObject({
      body: z.string().min(1).max(1_000_000),
      commit_id: sha.optional(),
      created_at: z.string().optional(),
      position: z
        .strictObject({
          base_sha: sha,
          start_sha: sha,
          head_sha: sha,
          position_type: z.enum(["text", "image", "file"]),
          new_path: z.string().min(1).optional(),
          old_path: z.string().min(1).optional(),
          new_line: int.positive().optional(),
          old_line: int.positive().optional(),
          line_range: z.strictObject({ start: lineRangeEnd, end: lineRangeEnd }).optional(),
        })
        .optional(),
    }),
  },
  {
    name: "discussions/resolve",
    method: "PUT",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/discussions\/(?<discussion>[0-9a-f]+)$/,
    query: z.strictObject({ resolved: bool }),
  },
  {
    name: "discussions/reply",
    method: "POST",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/discussions\/(?<discussion>[0-9a-f]+)\/notes$/,
    query: z.strictObject({}),
    body: z.strictObject({ body: z.string().min(1), note_id: int.optional(), created_at: z.string().optional() }),
  },
  {
    name: "notes/create",
    method: "POST",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/notes$/,
    query: z.strictObject({}),
    body: z.strictObject({
      body: z.string().min(1).max(1_000_000),
      created_at: z.string().optional(),
      internal: z.boolean().optional(),
      merge_request_diff_head_sha: sha.optional(),
    }),
  },
  {
    name: "notes/edit",
    method: "PUT",
    path: /^\/projects\/(?<id>[^/]+)\/merge_requests\/(?<iid>\d+)\/notes\/(?<note>\d+)$/,
    query: z.strictObject({}),
    body: z.strictObject({ body: z.string().min(1).max(1_000_000) }),
  },
  {
    name: "statuses/create",
    method: "POST",
    path: /^\/projects\/(?<id>[^/]+)\/statuses\/(?<sha>[0-9a-f]+)$/,
    query: z.strictObject({}),
    body: z.strictObject({
      state: z.enum(["pending", "running", "success", "failed", "canceled", "skipped"]),
      ref: z.string().optional(),
      name: z.string().max(255).optional(),
      context: z.string().optional(),
      target_url: z.url().optional(),
      description: z.string().max(255).optional(),
      coverage: z.number().optional(),
      pipeline_id: z.number().int().optional(),
    }),
  },
] as const;

/** `position[line_range][start][line_code]=…` form fields as the nested object GitLab reads them as. */
function nest(entries: Iterable<[string, string]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const names = [...key.matchAll(/^\w+|\[(\w+)\]/g)].map((m) => m[1] ?? m[0]);
    let at = out;
    for (const name of names.slice(0, -1)) at = (at[name] ??= {}) as Record<string, unknown>;
    at[names.at(-1) ?? key] = value;
  }
  return out;
}

function patchOf(path: string, before: string | undefined, after: string | undefined): string {
  const p = structuredPatch(path, path, before ?? "", after ?? "", "", "", { context: 3 });
  return p.hunks
    .map(
      (h) =>
        `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.filter((l) => !l.startsWith("\\")).join("\n")}\n`,
    )
    .join("");
}

/** GitLab's diff entries (old_path = new_path for an added file, as GitLab writes them). */
function diffsOf(base: Tree, head: Tree) {
  const paths = [...new Set([...Object.keys(base), ...Object.keys(head)])].sort();
  return paths.flatMap((path) => {
    const a = base[path];
    const b = head[path];
    if (a === b) return [];
    return [
      {
        old_path: path,
        new_path: path,
        a_mode: a === undefined ? "0" : "100644",
        b_mode: b === undefined ? "0" : "100644",
        new_file: a === undefined,
        renamed_file: false,
        deleted_file: b === undefined,
        generated_file: false,
        diff: patchOf(path, a, b),
      },
    ];
  });
}

function addedLines(patch: string): Set<number> {
  const added = new Set<number>();
  let line = 0;
  for (const text of patch.split("\n")) {
    const h = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(text);
    if (h) line = Number(h[1]);
    else if (text.startsWith("+")) added.add(line++);
    else if (text.startsWith(" ")) line++;
  }
  return added;
}

/**
 * GitLab's line code of every new-side line of a patch, by new line number: sha1 of the path, the old
 * line number, the new one (GitLab's diff parser: an added line keeps the old side's current number).
 */
function lineCodes(path: string, patch: string): Map<number, string> {
  const sha1 = createHash("sha1").update(path).digest("hex");
  const codes = new Map<number, string>();
  let oldLine = 0;
  let newLine = 0;
  for (const text of patch.split("\n")) {
    const h = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(text);
    if (h) [oldLine, newLine] = [Number(h[1]), Number(h[2])];
    else if (text.startsWith("+")) codes.set(newLine, `${sha1}_${oldLine}_${newLine++}`);
    else if (text.startsWith("-")) oldLine++;
    else if (text.startsWith(" ")) codes.set(newLine, `${sha1}_${oldLine++}_${newLine++}`);
  }
  return codes;
}

/** A line_range GitLab takes: both ends lines of the file's diff, in order, ending on the position's new_line. */
function lineRangeFits(pos: Record<string, unknown>, path: string, patch: string): boolean {
  const range = pos.line_range as { start: Record<string, unknown>; end: Record<string, unknown> } | undefined;
  if (!range) return true;
  const codes = lineCodes(path, patch);
  const lineOf = (end: Record<string, unknown>) =>
    [...codes].find(([, code]) => code === end.line_code && end.type === "new")?.[0];
  const start = lineOf(range.start);
  const end = lineOf(range.end);
  return start !== undefined && end !== undefined && start < end && end === Number(pos.new_line);
}

/** A webhook payload written from GitLab's documented format (docs.gitlab.com/user/project/integrations/webhook_events). */
export function gitLabFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../fixtures/gitlab/${name}`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
}

/** `port`: a fixed one when the server under test is configured before the stand-in starts (e2e). */
export async function startGitLabStandIn(opts: { port?: number } = {}): Promise<GitLabStandIn> {
  const token = `glpat-${randomBytes(16).toString("hex")}`;
  const webhookSecret = randomBytes(24).toString("hex");
  const projects = new Map<string, GitLabProject>();
  const groups = new Set<string>();
  const faults: Fault[] = [];
  const requests: string[] = [];
  const rejected: string[] = [];
  const refused = new Set<string>();
  let nextId = 5000;

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const mrUrl = (p: GitLabProject, iid: number) => `https://gitlab.example/${p.path}/-/merge_requests/${iid}`;
  const versionId = (mr: GitLabMr, i: number) => mr.iid * 1000 + i + 1;

  function mrJson(p: GitLabProject, mr: GitLabMr) {
    const head = mr.heads.at(-1)!;
    return {
      id: p.id * 100 + mr.iid,
      iid: mr.iid,
      project_id: p.id,
      title: mr.title,
      description: "",
      state: mr.state,
      draft: mr.draft,
      work_in_progress: mr.draft,
      source_branch: mr.sourceBranch,
      target_branch: "main",
      sha: head,
      web_url: mrUrl(p, mr.iid),
      diff_refs: { base_sha: mr.baseSha, head_sha: head, start_sha: mr.baseSha },
    };
  }

  function discussionJson(d: GitLabDiscussion) {
    return {
      id: d.id,
      individual_note: false,
      notes: d.notes.map((n) => ({
        id: n.id,
        type: d.position ? "DiffNote" : "DiscussionNote",
        body: n.body,
        author: { id: n.author === ARGUS_USER ? 1 : 41, username: n.author },
        system: false,
        resolvable: true,
        resolved: d.resolved,
        noteable_type: "MergeRequest",
        noteable_iid: d.mr,
        ...(d.position ? { position: d.position } : {}),
      })),
    };
  }

  async function readBody(req: http.IncomingMessage, raw: Buffer): Promise<unknown> {
    if (raw.length === 0) return undefined;
    const type = req.headers["content-type"] ?? "";
    if (type.startsWith("application/json")) return JSON.parse(raw.toString("utf8"));
    if (type.startsWith("multipart/form-data") || type.startsWith("application/x-www-form-urlencoded")) {
      const form = await new Request("http://x/", {
        method: "POST",
        headers: { "content-type": type },
        body: new Uint8Array(raw),
      }).formData();
      return nest([...form.entries()].map(([k, v]) => [k, String(v)] as [string, string]));
    }
    throw new Error(`unsupported content-type ${type}`);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const auth = req.headers.authorization ?? "";
    const given = /^bearer (.+)$/i.exec(auth)?.[1] ?? req.headers["private-token"];
    if (given !== token) return json(res, 401, { message: "401 Unauthorized" });
    if (!url.pathname.startsWith("/api/v4/")) {
      rejected.push(`${req.method} ${url.pathname}: not under /api/v4`);
      return json(res, 404, { error: "404 Not Found" });
    }
    const path = url.pathname.slice("/api/v4".length);
    const route = ROUTES.find((r) => r.method === req.method && r.path.test(path));
    if (!route) {
      rejected.push(`${req.method} ${path}: no such GitLab endpoint (or not one Argus should call)`);
      return json(res, 404, { error: "404 Not Found" });
    }
    const params = route.path.exec(path)!.groups as Record<string, string>;
    const query = route.query.safeParse(Object.fromEntries(url.searchParams));
    let body: unknown;
    try {
      body = await readBody(req, Buffer.concat(chunks));
    } catch (err) {
      rejected.push(`${req.method} ${route.name}: ${(err as Error).message}`);
      return json(res, 400, { error: "body is invalid" });
    }
    const bodyCheck =
      "body" in route
        ? route.body.safeParse(body ?? {})
        : // No parameters in the body (an empty JSON object, as gitbeaker sends on a PUT, is nothing).
          {
            success: body === undefined || (typeof body === "object" && !!body && !Object.keys(body).length),
            error: "parameters in the body of an endpoint that takes none",
          };
    if (!query.success || !bodyCheck.success) {
      const why = !query.success ? z.prettifyError(query.error) : String(bodyCheck.error);
      rejected.push(`${req.method} ${route.name}: ${why.slice(0, 300)}`);
      return json(res, 400, { error: why.slice(0, 300) });
    }
    requests.push(`${req.method} ${route.name}`);
    const at = faults.findIndex((f) => f.method === req.method && f.route === route.name);
    if (at >= 0) {
      const [fault] = faults.splice(at, 1);
      return json(res, fault!.status, fault!.body ?? { message: "fault" }, fault!.headers);
    }
    const b = (bodyCheck as { data?: Record<string, unknown> }).data ?? {};
    const q = query.data as Record<string, unknown>;

    if (route.name === "groups/show") {
      const g = decodeURIComponent(params.id!);
      return groups.has(g)
        ? json(res, 200, { id: 9, full_path: g, name: g })
        : json(res, 404, { message: "404 Group Not Found" });
    }
    const project =
      projects.get(decodeURIComponent(params.id!)) ?? [...projects.values()].find((p) => String(p.id) === params.id);
    if (!project) return json(res, 404, { message: "404 Project Not Found" });
    if (route.name === "projects/show")
      return json(res, 200, {
        id: project.id,
        path_with_namespace: project.path,
        web_url: `https://gitlab.example/${project.path}`,
      });
    if (route.name === "repository/compare") {
      const from = project.commits.get(String(q.from));
      const to = project.commits.get(String(q.to));
      if (!from || !to) return json(res, 404, { message: "404 Ref Not Found" });
      return json(res, 200, {
        commit: null,
        commits: [],
        diffs: diffsOf(from, to),
        compare_timeout: false,
        compare_same_ref: false,
      });
    }
    if (route.name === "repository/archive") {
      const tree = project.commits.get(String(q.sha ?? ""));
      if (!tree) return json(res, 404, { message: "404 File Not Found" });
      const top = `${project.path.split("/").pop()}-${String(q.sha)}/`;
      const zip = buildZip(Object.entries(tree).map(([name, data]) => ({ name: top + name, data })));
      res.writeHead(200, { "content-type": "application/zip", "content-length": String(zip.length) });
      return res.end(zip);
    }
    if (route.name === "repository/files/raw") {
      const text = project.commits.get(String(q.ref))?.[decodeURIComponent(params.file!)];
      if (text === undefined) return json(res, 404, { message: "404 File Not Found" });
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      return res.end(text);
    }
    if (route.name === "statuses/create") {
      if (!project.commits.has(params.sha!)) return json(res, 404, { message: "404 Commit Not Found" });
      const name = String(b.name ?? b.context ?? "default");
      const existing = project.statuses.find((s) => s.sha === params.sha && s.name === name);
      const row = existing ?? { id: nextId++, sha: params.sha!, name, state: "" };
      Object.assign(row, {
        state: String(b.state),
        description: b.description as string | undefined,
        targetUrl: b.target_url as string | undefined,
      });
      if (!existing) project.statuses.push(row);
      return json(res, 201, {
        id: row.id,
        sha: row.sha,
        name,
        status: row.state,
        description: row.description ?? null,
        target_url: row.targetUrl ?? null,
      });
    }

    const mr = project.mrs.get(Number(params.iid));
    if (!mr) return json(res, 404, { message: "404 Not found" });
    const headTree = () => project.commits.get(mr.heads.at(-1)!) ?? {};
    const baseTree = project.commits.get(mr.baseSha) ?? {};
    switch (route.name) {
      case "merge_requests/show":
        return json(res, 200, mrJson(project, mr));
      case "merge_requests/diffs":
        return json(res, 200, diffsOf(baseTree, headTree()));
      case "merge_requests/versions":
        return json(
          res,
          200,
          mr.heads
            .map((h, i) => ({
              id: versionId(mr, i),
              head_commit_sha: h,
              base_commit_sha: mr.baseSha,
              start_commit_sha: mr.baseSha,
              created_at: new Date().toISOString(),
              merge_request_id: project.id * 100 + mr.iid,
              state: "collected",
              real_size: "1",
            }))
            .reverse(),
        );
      case "merge_requests/version": {
        const i = mr.heads.findIndex((_, k) => versionId(mr, k) === Number(params.version));
        if (i < 0) return json(res, 404, { message: "404 Not found" });
        const h = mr.heads[i]!;
        return json(res, 200, {
          id: versionId(mr, i),
          head_commit_sha: h,
          base_commit_sha: mr.baseSha,
          start_commit_sha: mr.baseSha,
          diffs: diffsOf(baseTree, project.commits.get(h) ?? {}),
        });
      }
      case "discussions/list":
        return json(res, 200, project.discussions.filter((d) => d.mr === mr.iid).map(discussionJson));
      case "discussions/create": {
        const pos = b.position as Record<string, unknown> | undefined;
        if (pos) {
          const i = mr.heads.indexOf(String(pos.head_sha));
          const file =
            i < 0
              ? undefined
              : diffsOf(baseTree, project.commits.get(String(pos.head_sha)) ?? {}).find(
                  (f) => f.new_path === pos.new_path,
                );
          const ok =
            i >= 0 &&
            pos.base_sha === mr.baseSha &&
            pos.start_sha === mr.baseSha &&
            file &&
            file.old_path === pos.old_path &&
            pos.old_line === undefined &&
            addedLines(file.diff).has(Number(pos.new_line)) &&
            lineRangeFits(pos, file.new_path, file.diff);
          if (!ok || refused.has(`${pos.new_path}:${pos.new_line}`))
            return json(res, 400, { message: { line_code: ["can't be blank", "must be a valid line code"] } });
        }
        const d: GitLabDiscussion = {
          id: randomBytes(20).toString("hex"),
          mr: mr.iid,
          position: pos ?? null,
          notes: [{ id: nextId++, body: String(b.body), author: ARGUS_USER }],
          resolved: false,
        };
        project.discussions.push(d);
        return json(res, 201, discussionJson(d));
      }
      case "discussions/resolve":
      case "discussions/reply": {
        const d = project.discussions.find((x) => x.id === params.discussion && x.mr === mr.iid);
        if (!d) return json(res, 404, { message: "404 Discussion Not Found" });
        if (route.name === "discussions/resolve") {
          d.resolved = q.resolved === "true";
          return json(res, 200, discussionJson(d));
        }
        const note = { id: nextId++, body: String(b.body), author: ARGUS_USER };
        d.notes.push(note);
        return json(res, 201, { id: note.id, body: note.body, noteable_type: "MergeRequest" });
      }
      case "notes/create": {
        const note = { id: nextId++, mr: mr.iid, body: String(b.body), edits: 0 };
        project.notes.push(note);
        return json(res, 201, { id: note.id, body: note.body, noteable_type: "MergeRequest", noteable_iid: mr.iid });
      }
      case "notes/edit": {
        const note = project.notes.find((n) => n.id === Number(params.note) && n.mr === mr.iid);
        if (!note) return json(res, 404, { message: "404 Note Not Found" });
        note.body = String(b.body);
        note.edits++;
        return json(res, 200, { id: note.id, body: note.body, noteable_type: "MergeRequest", noteable_iid: mr.iid });
      }
    }
    return json(res, 500, { message: `stand-in: ${(route as { name: string }).name} not answered` });
  }

  function notePayloadOf(project: GitLabProject, mr: GitLabMr, d: GitLabDiscussion, note: GitLabNote) {
    const p = gitLabFixture("note.merge_request.json");
    const attrs = p.object_attributes as Record<string, unknown>;
    const mrAttrs = p.merge_request as Record<string, unknown>;
    return {
      ...p,
      user: { ...(p.user as Record<string, unknown>), username: note.author },
      project_id: project.id,
      project: {
        ...(p.project as Record<string, unknown>),
        id: project.id,
        path_with_namespace: project.path,
        web_url: `https://gitlab.example/${project.path}`,
      },
      object_attributes: {
        ...attrs,
        id: note.id,
        note: note.body,
        description: note.body,
        discussion_id: d.id,
        project_id: project.id,
        type: d.position ? "DiffNote" : d.notes.length > 1 ? "DiscussionNote" : null,
        position: d.position,
        url: `${mrUrl(project, mr.iid)}#note_${note.id}`,
      },
      merge_request: {
        ...mrAttrs,
        iid: mr.iid,
        title: mr.title,
        source_branch: mr.sourceBranch,
        url: mrUrl(project, mr.iid),
        last_commit: { ...(mrAttrs.last_commit as Record<string, unknown>), id: mr.heads.at(-1)! },
      },
    };
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      rejected.push(`stand-in error: ${(err as Error).message}`);
      if (!res.headersSent) json(res, 500, { message: "500 Internal Server Error" });
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    token,
    webhookSecret,
    requests,
    rejected,
    addProject(path, id) {
      const p: GitLabProject = {
        id,
        path,
        commits: new Map(),
        mrs: new Map(),
        discussions: [],
        notes: [],
        statuses: [],
      };
      projects.set(path, p);
      return p;
    },
    addGroup: (path) => void groups.add(path),
    commit(project, tree) {
      const s = randomBytes(20).toString("hex");
      project.commits.set(s, { ...tree });
      return s;
    },
    openMr(project, m) {
      const mr: GitLabMr = {
        iid: m.iid,
        title: m.title,
        sourceBranch: m.sourceBranch,
        draft: m.draft ?? false,
        state: "opened",
        baseSha: m.baseSha,
        heads: [m.headSha],
      };
      project.mrs.set(m.iid, mr);
      return mr;
    },
    push: (mr, headSha) => void mr.heads.push(headSha),
    failNext: (fault) => void faults.push(fault),
    refuseLine: (path, line) => void refused.add(`${path}:${line}`),
    delivery(event, payload, opts = {}) {
      return {
        body: JSON.stringify(payload),
        headers: {
          "content-type": "application/json",
          "x-gitlab-event": event,
          "x-gitlab-event-uuid": opts.uuid ?? randomUUID(),
          "x-gitlab-webhook-uuid": "0f7d3c5e-2a2b-4c8e-9d4e-7b1e0f3a9c21",
          "x-gitlab-instance": "https://gitlab.example",
          "x-gitlab-token": opts.token ?? webhookSecret,
          "user-agent": "GitLab/17.6.0",
        },
      };
    },
    userNote(project, mr, note) {
      let d = project.discussions.find((x) => x.id === note.discussionId && x.mr === mr.iid);
      if (!d) {
        d = { id: randomBytes(20).toString("hex"), mr: mr.iid, position: null, notes: [], resolved: false };
        project.discussions.push(d);
      }
      const n = { id: nextId++, body: note.body, author: note.username };
      d.notes.push(n);
      return notePayloadOf(project, mr, d, n);
    },
    notePayload: (project, mr, discussion, note) => notePayloadOf(project, mr, discussion, note),
    mergeRequestPayload(project, mr, action, extra = {}) {
      const p = gitLabFixture("merge_request.open.json");
      const head = mr.heads.at(-1)!;
      const attrs = p.object_attributes as Record<string, unknown>;
      const proj = {
        ...(p.project as Record<string, unknown>),
        id: project.id,
        path_with_namespace: project.path,
        web_url: `https://gitlab.example/${project.path}`,
      };
      return {
        ...p,
        project: proj,
        object_attributes: {
          ...attrs,
          iid: mr.iid,
          title: mr.title,
          source_branch: mr.sourceBranch,
          source_project_id: project.id,
          target_project_id: project.id,
          draft: mr.draft,
          work_in_progress: mr.draft,
          state: action === "close" ? "closed" : action === "merge" ? "merged" : "opened",
          action,
          url: mrUrl(project, mr.iid),
          last_commit: { ...(attrs.last_commit as Record<string, unknown>), id: head },
          ...(extra.oldrev ? { oldrev: extra.oldrev } : {}),
        },
        changes: extra.changes ?? {},
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
