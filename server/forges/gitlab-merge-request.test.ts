/**
 * A merge request on GitLab, end to end against the stand-in (every request checked against the
 * shape GitLab documents for its endpoint): an owner connects the project with an access token and
 * a webhook secret; the real Argus server takes a Merge Request Hook, imports the head commit, runs
 * the static review and writes back — one discussion per finding, positioned exactly on an added
 * line, the one summary note and the `Argus` commit status; then a push (update with oldrev) reviews
 * only what changed, posts nothing twice and resolves the discussion of the finding it fixed. Bad
 * input: a wrong token, a replayed event UUID; faults: a 429 with Retry-After, a refused position.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import {
  gitLabFixture,
  startGitLabStandIn,
  type GitLabMr,
  type GitLabProject,
  type GitLabStandIn,
} from "../../test/helpers/gitlab-stand-in.ts";
import { fingerprintOf } from "./markers.ts";

let gl: GitLabStandIn;
let server: TestServer;
let owner: TestUser;

const BASE_TREE = {
  "README.md": "# shop\n",
  "src/app.py": 'def total(items):\n    return sum(i["price"] for i in items)\n',
  // A finding the MR did not write (line 2): it belongs in the summary, not in a discussion.
  "src/legacy.py": 'TIMEOUT = 30\nSTRIPE_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"\n',
};
const SETTINGS = [
  '"""Settings."""',
  "PAGE_SIZE = 50",
  'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"',
  'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
  "",
].join("\n");

async function deliver(event: string, payload: unknown, opts: { uuid?: string; token?: string } = {}) {
  const d = gl.delivery(event, payload, opts);
  const res = await fetch(`${server.url}/api/forges/gitlab/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  return {
    status: res.status,
    body: (await res.json()) as { message: string },
    uuid: d.headers["x-gitlab-event-uuid"]!,
  };
}

async function settle() {
  for (let i = 0; i < 2; i++) {
    await server.services.queue.idle();
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  gl = await startGitLabStandIn();
  const t = await createTestConfig({
    GITLAB_URL: gl.url,
    // Every GitLab request goes through the outbound policy: only the stand-in's host:port passes.
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: new URL(gl.url).host,
    PUBLIC_URL: "https://argus.example",
  });
  server = await startTestServer(t);
  owner = await signUp(server.url, { name: "Owner" });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gl?.close();
});

describe("connecting GitLab", () => {
  it("checks the token against GitLab, seals it, and never shows it again", async () => {
    gl.addGroup("acme");
    const bad = await owner.client.mutate("forges.connectGitLab", {
      workspaceId: owner.workspaceId,
      namespace: "acme",
      token: "glpat-not-the-token",
      webhookSecret: gl.webhookSecret,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("refused the access token");
    const missing = await owner.client.mutate("forges.connectGitLab", {
      workspaceId: owner.workspaceId,
      namespace: "nobody/else",
      token: gl.token,
      webhookSecret: gl.webhookSecret,
    });
    expect(missing.status).toBe(400);

    const ok = await owner.client.ok<{ namespace: string; kind: string }>("mutate", "forges.connectGitLab", {
      workspaceId: owner.workspaceId,
      namespace: "Acme",
      token: gl.token,
      webhookSecret: gl.webhookSecret,
    });
    expect(ok).toMatchObject({ namespace: "acme", kind: "group" });
    const list = await owner.client.ok<unknown[]>("query", "forges.gitlabConnections", {
      workspaceId: owner.workspaceId,
    });
    expect(list).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(gl.token);
    const row = await server.services.db.forgeGitLabSecret.findFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(gl.token);
    expect(JSON.stringify(row)).not.toContain(gl.webhookSecret);
    expect(gl.rejected).toEqual([]);
  });
});

describe("a merge request on GitLab", () => {
  let project: GitLabProject;
  let mr: GitLabMr;

  it("open → one discussion per finding exactly on added lines, the summary note, an Argus status", async () => {
    project = gl.addProject("acme/shop", 310);
    const base = gl.commit(project, BASE_TREE);
    const head = gl.commit(project, {
      ...BASE_TREE,
      "src/settings.py": SETTINGS,
      "src/app.py": BASE_TREE["src/app.py"] + "\n\ndef count(items):\n    return len(items)\n",
      "src/legacy.py": BASE_TREE["src/legacy.py"] + "RETRIES = 3\n",
    });
    mr = gl.openMr(project, {
      iid: 7,
      title: "Add settings",
      sourceBranch: "feature/settings",
      baseSha: base,
      headSha: head,
    });

    const answer = await deliver("Merge Request Hook", gl.mergeRequestPayload(project, mr, "open"));
    expect(answer.status).toBe(202);
    await settle();
    expect(gl.rejected).toEqual([]);

    const link = await server.services.db.forgeRepo.findFirstOrThrow({ include: { project: true } });
    expect(link).toMatchObject({ fullName: "acme/shop", externalId: "310" });
    expect(link.project).toMatchObject({ workspaceId: owner.workspaceId, sourceKind: "gitlab" });
    const pr = await server.services.db.forgePull.findFirstOrThrow();
    expect(pr).toMatchObject({ title: "Add settings", headRef: "feature/settings", lastReviewedSha: head });
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    expect(review.status).toBe("completed");

    const discussions = project.discussions;
    expect(discussions.length).toBeGreaterThanOrEqual(2);
    for (const d of discussions) {
      // Added lines only, positioned on the reviewed diff version: the credentials are lines 3 and 4.
      expect(d.position).toMatchObject({
        position_type: "text",
        new_path: "src/settings.py",
        old_path: "src/settings.py",
        head_sha: head,
        base_sha: base,
      });
      expect(d.position!.old_line).toBeUndefined();
      expect([3, 4]).toContain(d.position!.new_line);
      expect(fingerprintOf(d.notes[0]!.body)).toBeTruthy();
    }
    const findings = await server.services.db.reviewFinding.findMany({ where: { reviewId: review.id } });
    expect(new Set(discussions.map((d) => fingerprintOf(d.notes[0]!.body)))).toEqual(
      new Set(findings.filter((f) => f.file === "src/settings.py").map((f) => f.fingerprint)),
    );

    expect(project.notes).toHaveLength(1);
    const summary = project.notes[0]!.body;
    expect(summary).toContain("## Argus review");
    expect(summary).toContain(`https://argus.example/reviews/${review.uid}`);
    expect(summary).toContain("`src/legacy.py:2`");
    expect(project.statuses).toHaveLength(1);
    expect(project.statuses[0]).toMatchObject({
      name: "Argus",
      sha: head,
      state: "success",
      targetUrl: `https://argus.example/reviews/${review.uid}`,
    });
    expect(project.statuses[0]!.description).toMatch(/informational/);
  }, 120_000);

  it("a replayed event UUID is 409; a wrong or missing X-Gitlab-Token is 401 and stores nothing", async () => {
    const payload = gl.mergeRequestPayload(project, mr, "open");
    const first = await deliver("Merge Request Hook", payload);
    expect(first.status).toBe(202); // same head: nothing new to review
    const replay = await deliver("Merge Request Hook", payload, { uuid: first.uuid });
    expect(replay.status).toBe(409);
    expect(replay.body.message).toContain(first.uuid);

    const before = await server.services.db.forgeDelivery.count();
    expect((await deliver("Merge Request Hook", payload, { token: "x".repeat(48) })).status).toBe(401);
    expect((await deliver("Merge Request Hook", payload, { token: "" })).status).toBe(401);
    // Not even a body that is not JSON is looked at before the token.
    const garbage = await fetch(`${server.url}/api/forges/gitlab/webhook`, {
      method: "POST",
      headers: { "x-gitlab-event": "Merge Request Hook", "x-gitlab-event-uuid": "u-1", "x-gitlab-token": "nope" },
      body: "{not json",
    });
    expect(garbage.status).toBe(401);
    expect(await server.services.db.forgeDelivery.count()).toBe(before);
    await settle();
    expect(project.notes).toHaveLength(1);
  });

  it("other events and actions are acknowledged and ignored; a project outside the connection is 404", async () => {
    const push = await deliver("Push Hook", { object_kind: "push" });
    expect(push.status).toBe(200);
    expect(push.body.message).toMatch(/does not act on Push Hook/);
    const labels = { ...gitLabFixture("merge_request.update-labels.json") };
    expect((await deliver("Merge Request Hook", labels)).status).toBe(200);
    const fixture = gitLabFixture("note.merge_request.json");
    const plainNote = { ...fixture, object_attributes: { ...(fixture.object_attributes as object), note: "LGTM" } };
    const note = await deliver("Note Hook", plainNote);
    expect(note.status).toBe(200);
    expect(note.body.message).toMatch(/does not mention @argus/);
    const outside = gl.mergeRequestPayload(project, mr, "open");
    (outside.project as Record<string, unknown>).path_with_namespace = "other/repo";
    const answer = await deliver("Merge Request Hook", outside);
    expect(answer.status).toBe(404);
    expect(answer.body.message).toContain("other/repo");
  });

  it("update with new commits → only the change is reviewed: nothing posted twice, the fixed discussion resolved", async () => {
    const before = project.discussions.length;
    const previousHead = mr.heads.at(-1)!;
    const fixedTree = {
      ...project.commits.get(previousHead)!,
      "src/settings.py": SETTINGS.replace(
        'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
        'AWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]',
      ).replace('"""Settings."""', '"""Settings."""\nimport os'),
    };
    gl.push(mr, gl.commit(project, fixedTree));
    const archives = gl.requests.filter((r) => r === "GET repository/archive").length;
    const answer = await deliver(
      "Merge Request Hook",
      gl.mergeRequestPayload(project, mr, "update", { oldrev: previousHead }),
    );
    expect(answer.status).toBe(202);
    await settle();
    expect(gl.rejected).toEqual([]);

    const pr = await server.services.db.forgePull.findFirstOrThrow();
    expect(pr.lastReviewedSha).toBe(mr.heads.at(-1));
    // The push is built on the last reviewed snapshot: the changed file fetched alone, not the archive.
    expect(gl.requests).toContain("GET repository/files/raw");
    expect(gl.requests.filter((r) => r === "GET repository/archive").length).toBe(archives);
    expect(project.discussions.length).toBe(before);
    const secret = project.discussions.find((d) => /secret/i.test(d.notes[0]!.body) && d.position!.new_line === 4);
    const kept = project.discussions.find((d) => d !== secret);
    expect(secret?.resolved).toBe(true);
    expect(kept?.resolved).toBe(false);
    expect(project.notes).toHaveLength(1);
    expect(project.notes[0]!.edits).toBe(1);
    expect(project.notes[0]!.body).toContain(`since \`${previousHead.slice(0, 7)}\``);
    expect(project.statuses.map((s) => s.sha)).toEqual([previousHead, mr.heads.at(-1)]);
  }, 120_000);

  it("a draft waits until it is marked ready (update with changes.draft true → false)", async () => {
    const p = gl.addProject("acme/draft", 312);
    const base = gl.commit(p, { "README.md": "# d\n" });
    const head = gl.commit(p, { "README.md": "# d\n", "keys.py": 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n' });
    const draft = gl.openMr(p, {
      iid: 1,
      title: "Draft: keys",
      sourceBranch: "keys",
      baseSha: base,
      headSha: head,
      draft: true,
    });
    expect((await deliver("Merge Request Hook", gl.mergeRequestPayload(p, draft, "open"))).status).toBe(202);
    await settle();
    expect(p.statuses).toHaveLength(0);
    draft.draft = false;
    const ready = gl.mergeRequestPayload(p, draft, "update", {
      changes: gitLabFixture("merge_request.update-ready.json").changes as Record<string, unknown>,
    });
    expect((await deliver("Merge Request Hook", ready)).status).toBe(202);
    await settle();
    expect(p.discussions).toHaveLength(1);
    expect(p.statuses).toHaveLength(1);
    expect(gl.rejected).toEqual([]);
  }, 120_000);
});

describe("`.argus.yaml` on a GitLab merge request", () => {
  it("an ignored path is not reviewed: no discussion on it, the others still posted", async () => {
    const p = gl.addProject("acme/vendored", 313);
    const base = gl.commit(p, { "README.md": "# v\n" });
    const head = gl.commit(p, {
      "README.md": "# v\n",
      ".argus.yaml": 'ignore: ["vendor/**"]\n',
      "vendor/keys.py": SETTINGS,
      "src/settings.py": SETTINGS,
    });
    const m = gl.openMr(p, { iid: 4, title: "Vendor", sourceBranch: "vendor", baseSha: base, headSha: head });
    expect((await deliver("Merge Request Hook", gl.mergeRequestPayload(p, m, "open"))).status).toBe(202);
    await settle();
    expect(gl.rejected).toEqual([]);
    expect(p.discussions.length).toBeGreaterThanOrEqual(1);
    expect(p.discussions.map((d) => d.position!.new_path)).not.toContain("vendor/keys.py");
    expect(p.discussions.every((d) => d.position!.new_path === "src/settings.py")).toBe(true);
    expect(p.notes[0]!.body).not.toContain("vendor/keys.py");
  }, 120_000);
});

describe("GitLab faults", () => {
  it("a 429 with Retry-After is waited out; a refused position goes to the summary and the review still lands", async () => {
    const p = gl.addProject("acme/api", 311);
    const base = gl.commit(p, { "README.md": "# api\n" });
    const head = gl.commit(p, { "README.md": "# api\n", "config.py": SETTINGS });
    const m = gl.openMr(p, { iid: 3, title: "Config", sourceBranch: "config", baseSha: base, headSha: head });
    gl.failNext({
      method: "GET",
      route: "merge_requests/show",
      status: 429,
      headers: { "retry-after": "1" },
      body: { message: "Retry later" },
    });
    gl.refuseLine("config.py", 3);
    const started = Date.now();
    expect((await deliver("Merge Request Hook", gl.mergeRequestPayload(p, m, "open"))).status).toBe(202);
    await settle();
    expect(gl.rejected).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(gl.requests.filter((r) => r === "GET merge_requests/show").length).toBeGreaterThanOrEqual(2);

    // The first discussion (line 4, most severe first) may be posted before line 3 is refused; it is
    // never posted twice, and the refused finding is in the summary.
    const fps = p.discussions.map((d) => fingerprintOf(d.notes[0]!.body));
    expect(new Set(fps).size).toBe(fps.length);
    expect(p.discussions.every((d) => d.position!.new_line !== 3)).toBe(true);
    expect(p.notes).toHaveLength(1);
    expect(p.notes[0]!.body).toContain("config.py:3");
    expect(p.notes[0]!.body).toContain("refused inline comments");
    expect(p.statuses).toHaveLength(1);
  }, 120_000);
});
