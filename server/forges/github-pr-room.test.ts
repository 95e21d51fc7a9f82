/**
 * The PR and its room as one conversation, against the GitHub stand-in (every request checked
 * against GitHub's OpenAPI description): `@argus` questions answered as replies with links to the
 * head's lines and streamed in the review's room; `@argus review` on a repository reviewed on request.
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
import { reviewRoom } from "../shared/rooms.ts";

let gh: GitHubStandIn;
let server: TestServer;
let workspaceId: string;

const SETTINGS = [
  '"""Settings."""',
  "PAGE_SIZE = 50",
  'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"',
  'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
  "",
].join("\n");

async function deliver(event: string, payload: unknown) {
  const d = gh.delivery(event, payload);
  const res = await fetch(`${server.url}/api/forges/github/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  return { status: res.status, body: (await res.json()) as { message: string } };
}

/** Until the queue and the answers are idle twice in a row (an answer's end queues its reply). */
async function settle() {
  for (let i = 0; i < 3; i++) {
    await server.services.queue.idle();
    await server.services.ask.idle();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function openPr(name: string, id: number, tree: Record<string, string>) {
  const repo = gh.addRepo(name, id);
  const base = gh.commit(repo, { "README.md": "# r\n" });
  const head = gh.commit(repo, { "README.md": "# r\n", ...tree });
  const pull = gh.openPull(repo, { number: 1, title: "Settings", headRef: "settings", headSha: head, baseSha: base });
  return { repo, pull };
}

async function comment(
  event: "issue_comment" | "pull_request_review_comment",
  repo: StandInRepo,
  pull: StandInPull,
  c: Parameters<GitHubStandIn["commentPayload"]>[3],
) {
  const { payload, commentId } = gh.commentPayload(event, repo, pull, c);
  const answer = await deliver(event, payload);
  await settle();
  return { ...answer, commentId };
}

beforeAll(async () => {
  gh = await startGitHubStandIn();
  const t = await createTestConfig({
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
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

describe("@argus on a pull request", () => {
  let repo: StandInRepo;
  let pull: StandInPull;

  it("a question in the conversation is answered as a reply, its references linked to the head's lines, and streams in the review room", async () => {
    ({ repo, pull } = await openPr("acme/shop", 5001, { "src/settings.py": SETTINGS }));
    expect((await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull))).status).toBe(202);
    await settle();
    expect(repo.issueComments).toHaveLength(1); // the summary

    const asked = await comment("issue_comment", repo, pull, {
      body: "@argus where is AWS_SECRET_ACCESS_KEY set?",
      login: "mona",
    });
    expect(asked.status).toBe(202);
    expect(gh.rejected).toEqual([]);
    expect(repo.issueComments).toHaveLength(2);
    const reply = repo.issueComments[1]!.body;
    // No model here: the answer is the code-search hits, each a link to the head commit's lines.
    expect(reply).toContain(`](https://github.example/acme/shop/blob/${pull.headSha}/src/settings.py#L`);
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { repo: { fullName: "acme/shop" } } });
    expect(reply).toContain(`https://argus.example/reviews/${pr.lastReviewUid}`);

    // The question and its answer are a conversation of the review's room, asked by the GitHub user.
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    const thread = await server.services.db.askThread.findFirstOrThrow({ where: { reviewId: review.id } });
    expect(thread.createdById).toBe("github:mona");
    const events = await server.services.db.roomEvent.findMany({
      where: { room: reviewRoom(review.uid), type: "ask.message" },
    });
    const messages = events.map(
      (e) => JSON.parse(e.payload) as { message: { kind: string; author: { name: string } | null; status: string } },
    );
    expect(messages.some((m) => m.message.kind === "question" && m.message.author?.name === "mona (GitHub)")).toBe(
      true,
    );
    expect(messages.some((m) => m.message.kind === "answer" && m.message.status === "done")).toBe(true);
  }, 120_000);

  it("a reply to an Argus inline comment asks about its finding, answered in that thread", async () => {
    const argusComment = repo.comments[0]!;
    const asked = await comment("pull_request_review_comment", repo, pull, {
      body: "@argus is this key really live?",
      login: "mona",
      inReplyTo: argusComment.id,
    });
    expect(asked.status).toBe(202);
    expect(gh.rejected).toEqual([]);
    expect(argusComment.replies).toHaveLength(1);
    expect(argusComment.replies[0]).toContain("Asked with @argus");
    const posted = await server.services.db.forgeComment.findFirstOrThrow({
      where: { commentId: String(argusComment.id) },
    });
    const thread = await server.services.db.askThread.findFirstOrThrow({
      where: { fingerprint: posted.fingerprint },
    });
    expect(thread.context).toBeTruthy(); // the finding is the question's context
  }, 120_000);

  it("comments by bots, on issues, or without @argus are acknowledged and ignored", async () => {
    const bot = await comment("issue_comment", repo, pull, { body: "@argus hello", bot: true });
    expect(bot.body.message).toMatch(/bot/);
    const issue = await comment("issue_comment", repo, pull, { body: "@argus hello", onIssue: true });
    expect(issue.body.message).toMatch(/not on a pull request/);
    const plain = await comment("issue_comment", repo, pull, { body: "looks good to me" });
    expect(plain.body.message).toMatch(/does not mention @argus/);
    expect(repo.issueComments).toHaveLength(2);
  }, 60_000);

  it("`@argus review` reviews a repository set to on request; off answers so", async () => {
    const { repo: quiet, pull: qp } = await openPr("acme/quiet", 5002, { "src/settings.py": SETTINGS });
    // An owner linked the repository and set it to be reviewed on request.
    const project = await server.services.db.project.create({
      data: { uid: crypto.randomUUID(), workspaceId, name: "acme/quiet", sourceKind: "github" },
    });
    const installation = await server.services.db.forgeInstallation.findFirstOrThrow();
    await server.services.db.forgeRepo.create({
      data: {
        installationId: installation.id,
        externalId: "5002",
        fullName: "acme/quiet",
        projectId: project.id,
        mode: "on_request",
      },
    });
    expect((await deliver("pull_request", gh.pullRequestPayload("opened", quiet, qp))).status).toBe(202);
    await settle();
    expect(quiet.reviews).toHaveLength(0);
    expect(quiet.checkRuns).toHaveLength(0);

    const asked = await comment("issue_comment", quiet, qp, { body: "@argus review", login: "mona" });
    expect(asked.status).toBe(202);
    expect(gh.rejected).toEqual([]);
    expect(quiet.reviews).toHaveLength(1);
    expect(quiet.checkRuns).toHaveLength(1);
    const ack = quiet.issueComments.find((c) => c.body.startsWith("Reviewing"));
    expect(ack?.body).toMatch(/https:\/\/argus\.example\/reviews\/[0-9a-f-]{36}/);

    await server.services.db.forgeRepo.update({ where: { projectId: project.id }, data: { mode: "off" } });
    await comment("issue_comment", quiet, qp, { body: "@argus review please" });
    expect(quiet.issueComments.at(-1)!.body).toMatch(/switched off/);
    expect(quiet.reviews).toHaveLength(1);
  }, 120_000);
});
