/**
 * A pull request on GitHub, end to end against the stand-in (every request checked against GitHub's
 * OpenAPI description): the real Argus server takes a signed delivery, imports the head commit,
 * runs the static review and writes ONE review back — inline comments only on added lines, the
 * summary comment, the `Argus` check run; then a push (synchronize) reviews only what changed, posts
 * nothing twice and resolves the thread of the finding it fixed. Bad input: a bad signature, a
 * replayed delivery, an unknown installation; faults: a 422 on a stale line, a 429 with retry-after.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import {
  startGitHubStandIn,
  type GitHubStandIn,
  type StandInPull,
  type StandInRepo,
} from "../../test/helpers/github-stand-in.ts";
import { fingerprintOf } from "./markers.ts";

let gh: GitHubStandIn;
let server: TestServer;
let workspaceId: string;

const LEGACY = 'TIMEOUT = 30\nSTRIPE_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"\n';
const BASE_TREE = {
  "README.md": "# shop\n",
  "src/app.py": 'def total(items):\n    return sum(i["price"] for i in items)\n',
  // A finding the PR did not write (line 2): it belongs in the summary, not inline.
  "src/legacy.py": LEGACY,
};
// The PR adds a settings file with credentials in code (the static engine's secrets rules) and a
// harmless line to app.py.
const SETTINGS = [
  '"""Settings."""',
  "PAGE_SIZE = 50",
  'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"',
  'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
  "",
].join("\n");

async function deliver(event: string, payload: unknown, opts: { deliveryId?: string; signature?: string } = {}) {
  const d = gh.delivery(event, payload, opts.deliveryId);
  if (opts.signature !== undefined) d.headers["x-hub-signature-256"] = opts.signature;
  const res = await fetch(`${server.url}/api/forges/github/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  return {
    status: res.status,
    body: (await res.json()) as { message: string },
    deliveryId: d.headers["x-github-delivery"]!,
  };
}

/** Waits until the queue is idle twice in a row (the review's end queues the publishing job). */
async function settle() {
  for (let i = 0; i < 2; i++) {
    await server.services.queue.idle();
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  gh = await startGitHubStandIn();
  const t = await createTestConfig({
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
    // Every forge request goes through the outbound policy: only the stand-in's own host:port is let
    // through (the test default allowing all of loopback is switched off).
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: new URL(gh.url).host,
    PUBLIC_URL: "https://argus.example",
  });
  server = await startTestServer(t);
  const ws = await server.services.db.workspace.create({ data: { name: "shop team" } });
  workspaceId = ws.id;
  await server.services.db.forgeInstallation.create({
    data: { workspaceId, forge: "github", externalId: String(gh.installationId) },
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gh?.close();
});

describe("a pull request on GitHub", () => {
  let repo: StandInRepo;
  let pull: StandInPull;

  it("opened → one review: inline comments exactly on added lines, the summary, a neutral Argus check", async () => {
    repo = gh.addRepo("acme/shop", 5001);
    const base = gh.commit(repo, BASE_TREE);
    const head = gh.commit(repo, {
      ...BASE_TREE,
      "src/settings.py": SETTINGS,
      "src/app.py": BASE_TREE["src/app.py"] + "\n\ndef count(items):\n    return len(items)\n",
      "src/legacy.py": LEGACY + "RETRIES = 3\n",
    });
    pull = gh.openPull(repo, {
      number: 7,
      title: "Add settings",
      headRef: "feature/settings",
      headSha: head,
      baseSha: base,
    });

    const answer = await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull));
    expect(answer.status).toBe(202);
    await settle();

    expect(gh.rejected).toEqual([]);
    // The repository became a project of the installation's workspace, reviewed in a review room.
    const link = await server.services.db.forgeRepo.findFirstOrThrow({ include: { project: true } });
    expect(link.project.workspaceId).toBe(workspaceId);
    const pr = await server.services.db.forgePull.findFirstOrThrow();
    expect(pr).toMatchObject({ title: "Add settings", headRef: "feature/settings", lastReviewedSha: head });
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    expect(review.status).toBe("completed");

    expect(repo.reviews).toHaveLength(1);
    expect(repo.reviews[0]).toMatchObject({ pull: 7, commitId: head, event: "COMMENT" });
    const comments = repo.comments;
    expect(comments.length).toBeGreaterThanOrEqual(2);
    for (const c of comments) {
      // Added lines only: the settings file is new, its credentials are on lines 3 and 4.
      expect(c.path).toBe("src/settings.py");
      expect([3, 4]).toContain(c.line);
      expect(fingerprintOf(c.body)).toBeTruthy();
    }
    const findings = await server.services.db.reviewFinding.findMany({ where: { reviewId: review.id } });
    expect(new Set(comments.map((c) => fingerprintOf(c.body)))).toEqual(
      new Set(findings.filter((f) => f.file === "src/settings.py").map((f) => f.fingerprint)),
    );

    expect(repo.issueComments).toHaveLength(1);
    const summary = repo.issueComments[0]!.body;
    expect(summary).toContain("## Argus review");
    expect(summary).toContain(`https://argus.example/reviews/${review.uid}`);
    // The finding on a line the PR did not add is in the summary, by severity, with its place.
    const legacy = findings.filter((f) => f.file === "src/legacy.py");
    expect(legacy.length).toBeGreaterThan(0);
    expect(summary).toContain("Not on the changed lines");
    expect(summary).toContain("`src/legacy.py:2`");
    expect(repo.checkRuns).toHaveLength(1);
    expect(repo.checkRuns[0]).toMatchObject({ name: "Argus", headSha: head, conclusion: "neutral" });
    expect(repo.checkRuns[0]!.annotations.length).toBe(findings.length);
  }, 120_000);

  it("a replayed delivery is refused, a bad signature is 401 and stores nothing", async () => {
    const payload = gh.pullRequestPayload("opened", repo, pull);
    const first = await deliver("pull_request", payload);
    expect(first.status).toBe(202); // same head: the job finds nothing new to review
    const replay = await deliver("pull_request", payload, { deliveryId: first.deliveryId });
    expect(replay.status).toBe(409);
    expect(replay.body.message).toContain(first.deliveryId);

    const before = await server.services.db.forgeDelivery.count();
    const forged = await deliver("pull_request", payload, { signature: `sha256=${"0".repeat(64)}` });
    expect(forged.status).toBe(401);
    const unsigned = await deliver("pull_request", payload, { signature: "" });
    expect(unsigned.status).toBe(401);
    expect(await server.services.db.forgeDelivery.count()).toBe(before);
    await settle();
    expect(repo.reviews).toHaveLength(1); // nothing posted twice
  });

  it("an unknown installation is 404 naming it; other events are acknowledged and ignored", async () => {
    const payload = { ...gh.pullRequestPayload("opened", repo, pull), installation: { id: 999_999 } };
    const unknown = await deliver("pull_request", payload);
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain("999999");
    const star = await deliver("star", { action: "created" });
    expect(star.status).toBe(200);
    expect(star.body.message).toMatch(/does not act on star/);
  });

  it("synchronize → only the change is reviewed: nothing posted twice, the fixed finding's thread resolved, a new check run", async () => {
    const before = repo.comments.length;
    const fixedTree = {
      ...repo.commits.get(pull.headSha)!,
      // The secret key moves to the environment; the access key id stays.
      "src/settings.py": SETTINGS.replace(
        'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
        'AWS_SECRET_ACCESS_KEY = os.environ["AWS_SECRET_ACCESS_KEY"]',
      ).replace('"""Settings."""', '"""Settings."""\nimport os'),
    };
    const previousHead = pull.headSha;
    pull.headSha = gh.commit(repo, fixedTree);
    const answer = await deliver("pull_request", gh.pullRequestPayload("synchronize", repo, pull));
    expect(answer.status).toBe(202);
    await settle();
    expect(gh.rejected).toEqual([]);

    const pr = await server.services.db.forgePull.findFirstOrThrow();
    expect(pr.lastReviewedSha).toBe(pull.headSha);
    // Nothing new to say inline: no second review, no repeated comment.
    expect(repo.comments.length).toBe(before);
    expect(repo.reviews).toHaveLength(1);
    const secretComment = repo.comments.find((c) => /secret/i.test(c.body) && c.line === 4);
    const keptComment = repo.comments.find((c) => c !== secretComment);
    expect(secretComment).toBeDefined();
    expect(repo.resolvedThreads.has(secretComment!.id)).toBe(true);
    expect(repo.resolvedThreads.has(keptComment!.id)).toBe(false);
    // One summary comment, edited; a check run for the new head.
    expect(repo.issueComments).toHaveLength(1);
    expect(repo.issueComments[0]!.edits).toBe(1);
    expect(repo.issueComments[0]!.body).toContain(`since \`${previousHead.slice(0, 7)}\``);
    expect(repo.checkRuns.map((r) => r.headSha)).toEqual([previousHead, pull.headSha]);
  }, 120_000);
});

describe("forge faults", () => {
  it("a 429 with retry-after is waited out; a line GitHub refuses (422) goes to the summary and the review still lands", async () => {
    const repo = gh.addRepo("acme/api", 5002);
    const base = gh.commit(repo, { "README.md": "# api\n" });
    const head = gh.commit(repo, { "README.md": "# api\n", "config.py": SETTINGS });
    const pull = gh.openPull(repo, { number: 3, title: "Config", headRef: "config", headSha: head, baseSha: base });
    gh.failNext({
      method: "GET",
      operationId: "pulls/get",
      status: 429,
      headers: { "retry-after": "1" },
      body: { message: "API rate limit exceeded" },
    });
    gh.refuseLine("config.py", 3);
    const started = Date.now();
    expect((await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull))).status).toBe(202);
    await settle();
    expect(gh.rejected).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(gh.requests.filter((r) => r === "GET pulls/get").length).toBeGreaterThanOrEqual(2);

    // GitHub refused the review twice (the line stays refused): no inline comment, all in the summary.
    expect(repo.reviews).toHaveLength(0);
    expect(repo.issueComments).toHaveLength(1);
    const summary = repo.issueComments[0]!.body;
    expect(summary).toContain("Not on the changed lines");
    expect(summary).toContain("config.py:3");
    expect(summary).toContain("refused inline comments");
    expect(repo.checkRuns).toHaveLength(1);
  }, 120_000);
});

describe("repository rules and quiet modes", () => {
  const KEYS = 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n';

  async function openPr(name: string, id: number, head: Record<string, string>, draft = false) {
    const repo = gh.addRepo(name, id);
    const base = gh.commit(repo, { "README.md": "# r\n" });
    const sha = gh.commit(repo, { "README.md": "# r\n", ...head });
    const pull = gh.openPull(repo, { number: 1, title: "Rules", headRef: "rules", headSha: sha, baseSha: base, draft });
    expect((await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull))).status).toBe(202);
    await settle();
    expect(gh.rejected).toEqual([]);
    return { repo, pull };
  }

  it(".argus.yaml: ignored paths get no comment, fail_on fails the check", async () => {
    const { repo } = await openPr("acme/rules", 6001, {
      ".argus.yaml": 'ignore: ["vendor/**"]\nfail_on: critical\n',
      "vendor/lib/keys.py": KEYS,
      "src/keys.py": KEYS,
    });
    expect(repo.comments.map((c) => c.path)).toEqual(["src/keys.py"]);
    expect(repo.issueComments[0]!.body).not.toContain("vendor/");
    expect(repo.checkRuns[0]).toMatchObject({ conclusion: "failure" });
    expect(repo.checkRuns[0]!.title).toMatch(/at critical or worse/);
  }, 120_000);

  it("a malformed .argus.yaml is reported in the summary with its line, and the defaults apply", async () => {
    const { repo } = await openPr("acme/bad-rules", 6002, {
      ".argus.yaml": "ignore: [src]\nfail_on: severe\n",
      "src/keys.py": KEYS,
    });
    const summary = repo.issueComments[0]!.body;
    expect(summary).toMatch(/\.argus\.yaml line 2: fail_on: /);
    expect(summary).toContain("The defaults applied");
    // Defaults: src is reviewed and commented on, the check stays neutral.
    expect(repo.comments.map((c) => c.path)).toEqual(["src/keys.py"]);
    expect(repo.checkRuns[0]).toMatchObject({ conclusion: "neutral" });
  }, 120_000);

  it("a draft is skipped until it is ready for review", async () => {
    const { repo, pull } = await openPr("acme/draft", 6003, { "src/keys.py": KEYS }, true);
    expect(repo.reviews).toHaveLength(0);
    expect(repo.issueComments).toHaveLength(0);
    expect(repo.checkRuns).toHaveLength(0);
    pull.draft = false;
    expect((await deliver("pull_request", gh.pullRequestPayload("ready_for_review", repo, pull))).status).toBe(202);
    await settle();
    expect(repo.reviews).toHaveLength(1);
    expect(repo.checkRuns).toHaveLength(1);
  }, 120_000);
});
