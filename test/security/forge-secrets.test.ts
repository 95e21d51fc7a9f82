/**
 * The forge's secrets never come out (the canary sweep of secrets.test.ts, for pull requests): a real
 * server process logging at debug level reviews a PR on the GitHub stand-in and a merge request on
 * the GitLab stand-in. The App's private key, its webhook secret, every installation token the
 * stand-in minted, the GitLab access token and the GitLab webhook secret are then searched for in the
 * server's logs, the review rooms' events, every API response of the run, what was posted on the
 * PR and the MR, and the forge's and snapshots' rows in the database. None may appear anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../server/db/client.ts";
import { createTestConfig, type TestConfig } from "../helpers/db.ts";
import { signUp, type TestUser } from "../helpers/server.ts";
import { startGitHubStandIn, type GitHubStandIn, type StandInRepo } from "../helpers/github-stand-in.ts";
import { startGitLabStandIn, type GitLabProject, type GitLabStandIn } from "../helpers/gitlab-stand-in.ts";
import { findLeaks } from "./support/canaries.ts";
import { startServerProcess, type ServerProcess } from "./support/process-server.ts";
import { RecordingClient } from "./support/recording-client.ts";

let gh: GitHubStandIn;
let t: TestConfig;
let server: ServerProcess;
let owner: TestUser;
let db: Db;
let repo: StandInRepo;
let reviewUid: string;
let gl: GitLabStandIn;
let glProject: GitLabProject;
let glReviewUid: string;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Every secret of the forge: the private key's body lines, the webhook secret, the tokens minted. */
function needles(): string[] {
  const keyLines = gh.privateKey.split("\n").filter((l) => l.length > 40 && !l.startsWith("-----"));
  return [...keyLines, gh.webhookSecret, ...gh.tokensMinted, gl.token, gl.webhookSecret];
}

beforeAll(async () => {
  gh = await startGitHubStandIn();
  gl = await startGitLabStandIn();
  t = await createTestConfig();
  server = await startServerProcess({
    ...t.env,
    LOG_LEVEL: "debug",
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
    GITLAB_URL: gl.url,
    // Every forge request goes through the outbound policy: only the stand-ins' own host:port are let
    // through (the test default allowing all of loopback is switched off).
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: `${new URL(gh.url).host},${new URL(gl.url).host}`,
  });
  const user = await signUp(server.url, { name: "Owner" });
  owner = { ...user, client: new RecordingClient(user.client.baseUrl, user.client.cookie) };
  await owner.client.ok("mutate", "forges.connect", {
    workspaceId: owner.workspaceId,
    forge: "github",
    installationId: gh.installationId,
  });

  repo = gh.addRepo("acme/vault", 9001);
  const base = gh.commit(repo, { "README.md": "# vault\n" });
  const head = gh.commit(repo, {
    "README.md": "# vault\n",
    "keys.py": 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n',
  });
  const pull = gh.openPull(repo, { number: 1, title: "Keys", headRef: "keys", headSha: head, baseSha: base });
  const d = gh.delivery("pull_request", gh.pullRequestPayload("opened", repo, pull));
  const res = await fetch(`${server.url}/api/forges/github/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  expect(res.status).toBe(202);
  await waitFor("the check run", () => repo.checkRuns.length > 0);

  // The same on GitLab: a connection (token and webhook secret entered through the API), a merge request.
  glProject = gl.addProject("acme/vault", 9101);
  await owner.client.ok("mutate", "forges.connectGitLab", {
    workspaceId: owner.workspaceId,
    namespace: "acme/vault",
    token: gl.token,
    webhookSecret: gl.webhookSecret,
  });
  const glBase = gl.commit(glProject, { "README.md": "# vault\n" });
  const glHead = gl.commit(glProject, {
    "README.md": "# vault\n",
    "keys.py": 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n',
  });
  const mr = gl.openMr(glProject, { iid: 1, title: "Keys", sourceBranch: "keys", baseSha: glBase, headSha: glHead });
  const glDelivery = gl.delivery("Merge Request Hook", gl.mergeRequestPayload(glProject, mr, "open"));
  const glRes = await fetch(`${server.url}/api/forges/gitlab/webhook`, {
    method: "POST",
    headers: glDelivery.headers,
    body: glDelivery.body,
  });
  expect(glRes.status).toBe(202);
  await waitFor("the commit status", () => glProject.statuses.length > 0);

  db = await createDb(t.config.db);
  reviewUid = (await db.forgePull.findFirstOrThrow({ where: { repo: { installation: { forge: "github" } } } }))
    .lastReviewUid!;
  glReviewUid = (await db.forgePull.findFirstOrThrow({ where: { repo: { installation: { forge: "gitlab" } } } }))
    .lastReviewUid!;
  const ws = owner.workspaceId;
  const projects = await owner.client.ok<{ uid: string }[]>("query", "projects.list", { workspaceId: ws });
  for (const p of projects) {
    await owner.client.query("projects.get", { uid: p.uid });
    await owner.client.query("snapshots.list", { projectUid: p.uid });
  }
  await owner.client.query("forges.installations", { workspaceId: ws });
  await owner.client.query("forges.pullOfReview", { reviewUid });
  await owner.client.query("forges.gitlabConnections", { workspaceId: ws });
  await owner.client.query("forges.pullOfReview", { reviewUid: glReviewUid });
  await owner.client.query("reviews.get", { uid: glReviewUid });
  await owner.client.query("reviews.list", { workspaceId: ws });
  await owner.client.query("reviews.get", { uid: reviewUid });
  await owner.client.query("reviews.findings", { reviewUid });
}, 240_000);

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await gh?.close();
  await gl?.close();
  await t?.cleanup();
});

describe("a forge's secrets never come out", () => {
  it("the run used them: tokens were minted and the review was posted", () => {
    expect(gh.tokensMinted.length).toBeGreaterThan(0);
    expect(repo.reviews.length + repo.issueComments.length).toBeGreaterThan(0);
    expect(gh.rejected).toEqual([]);
    expect(glProject.discussions.length + glProject.notes.length).toBeGreaterThan(0);
    expect(gl.rejected).toEqual([]);
    expect(needles().length).toBeGreaterThan(5);
  });

  it("in the server's logs (debug level)", () => {
    const log = server.output.join("\n");
    expect(log).toContain("pull request review published"); // the capture works
    expect(findLeaks(log, needles())).toEqual([]);
  });

  it("in the review rooms' events", async () => {
    for (const uid of [reviewUid, glReviewUid]) {
      const events = await owner.client.ok<unknown[]>("query", "reviews.events", { uid });
      expect(events.length).toBeGreaterThan(0);
      expect(findLeaks(events, needles())).toEqual([]);
    }
  });

  it("in any API response of the run", () => {
    expect(RecordingClient.bodies.length).toBeGreaterThan(8);
    const leaks = RecordingClient.bodies.filter((b) => findLeaks(b, needles()).length > 0);
    expect(leaks.map((b) => JSON.stringify(b).slice(0, 300))).toEqual([]);
  });

  it("in what was posted on the pull request", () => {
    const posted = [
      repo.reviews,
      repo.comments,
      repo.issueComments,
      repo.checkRuns,
      glProject.discussions,
      glProject.notes,
      glProject.statuses,
    ];
    expect(findLeaks(posted, needles())).toEqual([]);
  });

  it("in the database's forge and snapshot rows", async () => {
    const rows = await Promise.all([
      db.forgeInstallation.findMany(),
      db.forgeGitLabSecret.findMany(),
      db.forgeRepo.findMany(),
      db.forgePull.findMany(),
      db.forgeComment.findMany(),
      db.forgeDelivery.findMany(),
      db.snapshot.findMany(),
      db.project.findMany(),
      db.review.findMany(),
    ]);
    expect(rows[1].length).toBe(1); // the GitLab connection's sealed secrets are there, sealed
    expect(rows[5].length).toBe(2); // one delivery from each forge
    expect(findLeaks(rows, needles())).toEqual([]);
  });
});
