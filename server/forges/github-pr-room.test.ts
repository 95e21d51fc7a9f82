/**
 * The PR and its room as one conversation, against the GitHub stand-in (every request checked
 * against GitHub's OpenAPI description): `@argus` questions answered as replies with links to the
 * head's lines and streamed in the review's room; `@argus review` on a repository reviewed on request.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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

  it("comments by bots or on issues are acknowledged and ignored; a plain comment gets no answer", async () => {
    const bot = await comment("issue_comment", repo, pull, { body: "@argus hello", bot: true });
    expect(bot.body.message).toMatch(/bot/);
    const issue = await comment("issue_comment", repo, pull, { body: "@argus hello", onIssue: true });
    expect(issue.body.message).toMatch(/not on a pull request/);
    const plain = await comment("issue_comment", repo, pull, { body: "looks good to me" });
    expect(plain.status).toBe(202); // read for reactions on Argus's comments, not answered
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
    // Off is quiet: a question gets no answer either.
    const before = quiet.issueComments.length;
    await comment("issue_comment", quiet, qp, { body: "@argus what does settings.py do?" });
    expect(quiet.issueComments).toHaveLength(before);
  }, 120_000);
});

describe("the room and the PR are one conversation", () => {
  let repo: StandInRepo;
  let pull: StandInPull;
  let reviewUid: string;
  let projectId: string;

  const chatOf = (fingerprint: string) =>
    server.services.db.roomMessage.findMany({
      where: { room: reviewRoom(reviewUid), thread: fingerprint },
      orderBy: { createdAt: "asc" },
    });
  const votesOf = (fingerprint: string) =>
    server.services.db.findingVote.findMany({ where: { review: { uid: reviewUid }, fingerprint } });
  const postedOn = (line: number) => {
    const c = repo.comments.find((x) => x.line === line)!;
    return {
      comment: c,
      row: server.services.db.forgeComment.findFirstOrThrow({ where: { commentId: String(c.id) } }),
    };
  };

  it("a team vote in the room resolves the PR thread and says the verdict there", async () => {
    ({ repo, pull } = await openPr("acme/votes", 5101, { "src/settings.py": SETTINGS }));
    await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull));
    await settle();
    expect(repo.comments.length).toBeGreaterThanOrEqual(2);
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { repo: { fullName: "acme/votes" } } });
    reviewUid = pr.lastReviewUid!;
    projectId = (await server.services.db.forgeRepo.findFirstOrThrow({ where: { fullName: "acme/votes" } })).projectId;

    const user = await server.services.db.user.create({
      data: { id: crypto.randomUUID(), name: "Bea Member", email: `bea-${Date.now()}@example.com` },
    });
    await server.services.db.membership.create({ data: { userId: user.id, workspaceId, role: "member" } });
    const { comment, row } = postedOn(4);
    const posted = await row;
    await server.services.findingTeam.vote(
      { userId: user.id, email: user.email, name: user.name },
      { name: reviewRoom(reviewUid), workspaceId, role: "member" },
      { fingerprint: posted.fingerprint, verdict: "wont_fix" },
    );
    await settle();
    expect(gh.rejected).toEqual([]);
    expect(comment.replies.at(-1)).toMatch(/The team judged this finding \*\*won't fix\*\* in Argus/);
    expect(repo.resolvedThreads.has(comment.id)).toBe(true);
    // A second look at the same verdict says nothing twice.
    await server.services.findingTeam.vote(
      { userId: user.id, email: user.email, name: user.name },
      { name: reviewRoom(reviewUid), workspaceId, role: "member" },
      { fingerprint: posted.fingerprint, verdict: "wont_fix" },
    );
    await settle();
    expect(comment.replies).toHaveLength(1);
  }, 120_000);

  it("a 👎 on an Argus comment is a false-positive vote in the room: the finding is not raised again, a similar one loses confidence", async () => {
    const { comment, row } = postedOn(3);
    const posted = await row;
    gh.react(repo, comment.id, "mona", "-1");
    gh.react(repo, comment.id, "hubot[bot]", "-1"); // a bot's reaction is no verdict
    // Reactions are read when the PR's next job runs: here, a comment on the PR.
    await comment_("looks fine otherwise");
    expect(gh.rejected).toEqual([]);
    const votes = await votesOf(posted.fingerprint);
    expect(votes.map((v) => [v.userId, v.verdict])).toEqual([["github:mona", "false_positive"]]);
    const chat = await chatOf(posted.fingerprint);
    expect(chat.map((m) => [m.authorId, m.body])).toEqual([["github:mona", "👎 on the pull request"]]);
    // The project's memory: dismissed, so a new PR with the same code does not raise it.
    const dismissal = await server.services.db.findingDismissal.findUnique({
      where: { projectId_fingerprint: { projectId, fingerprint: posted.fingerprint } },
    });
    expect(dismissal?.source).toBe("vote");
    // Read once: the next job does not count it again.
    await comment_("still fine");
    expect(await votesOf(posted.fingerprint)).toHaveLength(1);

    const again = gh.openPull(repo, {
      number: 2,
      title: "Settings again",
      headRef: "again",
      headSha: pull.headSha,
      baseSha: pull.baseSha,
    });
    await deliver("pull_request", gh.pullRequestPayload("opened", repo, again));
    await settle();
    const second = repo.reviews.find((r) => r.pull === 2)!;
    const secondComments = repo.comments.filter((c) => second.comments.includes(c.id));
    expect(secondComments.length).toBeGreaterThan(0);
    expect(secondComments.some((c) => c.line === 3)).toBe(false);
    // Another rule's finding (the secret key) is raised as it was.
    expect(secondComments.find((c) => c.line === 4)?.body).not.toContain("similar to a finding");

    // A second access key in the same file: the same rule and file as the false positive, so it is
    // raised with less confidence, and says why.
    const backup = gh.commit(repo, {
      "README.md": "# r\n",
      "src/settings.py": `${SETTINGS}BACKUP_AWS_ACCESS_KEY_ID = "AKIAQ4RT7YU2IOP5LK3Z"\n`,
    });
    const third = gh.openPull(repo, {
      number: 3,
      title: "Backup key",
      headRef: "backup",
      headSha: backup,
      baseSha: pull.baseSha,
    });
    await deliver("pull_request", gh.pullRequestPayload("opened", repo, third));
    await settle();
    const thirdReview = repo.reviews.find((r) => r.pull === 3)!;
    const thirdComments = repo.comments.filter((c) => thirdReview.comments.includes(c.id));
    expect(thirdComments.some((c) => c.line === 3)).toBe(false);
    expect(thirdComments.find((c) => c.line === 5)?.body).toMatch(
      /similar to a finding the team marked false positive on \d{4}-\d{2}-\d{2}/,
    );
  }, 120_000);

  it("a 👎 taken back on GitHub withdraws its vote and lifts the dismissal that rested on it", async () => {
    const { comment, row } = postedOn(3);
    const posted = await row;
    expect((await votesOf(posted.fingerprint)).map((v) => v.userId)).toEqual(["github:mona"]);
    // mona removes her 👎 (GitHub's DELETE …/reactions/{id}); the bot's stays.
    comment.reactions = comment.reactions.filter((r) => r.login !== "mona");
    await comment_("changed my mind about the key");
    expect(gh.rejected).toEqual([]);
    expect(await votesOf(posted.fingerprint)).toEqual([]);
    const chat = await chatOf(posted.fingerprint);
    expect(chat.at(-1)).toMatchObject({ authorId: "github:mona", body: "👎 taken back on the pull request" });
    const dismissal = await server.services.db.findingDismissal.findUnique({
      where: { projectId_fingerprint: { projectId, fingerprint: posted.fingerprint } },
    });
    expect(dismissal).toBeNull();
    const events = await server.services.db.roomEvent.findMany({
      where: { room: reviewRoom(reviewUid), type: { in: ["finding_votes", "finding_restored"] } },
      orderBy: { seq: "desc" },
      take: 2,
    });
    expect(events.map((e) => [e.type, JSON.parse(e.payload)])).toEqual([
      ["finding_restored", { fingerprint: posted.fingerprint }],
      ["finding_votes", { fingerprint: posted.fingerprint, votes: [] }],
    ]);
    // Taken back once: the next read says nothing more.
    await comment_("ok");
    expect(await chatOf(posted.fingerprint)).toHaveLength(chat.length);
  }, 120_000);

  it("a reaction taken back withdraws only a vote that rests on it alone", async () => {
    const { comment: argus, row } = postedOn(3);
    const posted = await row;
    gh.react(repo, argus.id, "octo", "+1");
    gh.react(repo, argus.id, "zed", "+1");
    await comment_("reading the reactions");
    // octo then says the same in words: their *real* vote also rests on the reply.
    await comment("pull_request_review_comment", repo, pull, {
      body: "Confirmed, this key is live.",
      login: "octo",
      inReplyTo: argus.id,
    });
    // Both take their 👍 back: zed's vote goes with it, octo's stays on their reply.
    argus.reactions = argus.reactions.filter((r) => r.login !== "octo" && r.login !== "zed");
    await comment_("reading the reactions again");
    expect((await votesOf(posted.fingerprint)).map((v) => [v.userId, v.verdict])).toEqual([["github:octo", "real"]]);
    expect((await chatOf(posted.fingerprint)).at(-1)).toMatchObject({
      authorId: "github:zed",
      body: "👍 taken back on the pull request",
    });
  }, 120_000);

  it("a burst of pull_request deliveries reads the reactions at most once per PR in 30 s; a comment always does", async () => {
    const reads = () => gh.requests.filter((r) => r.endsWith(" reactions/list-for-pull-request-review-comment")).length;
    const before = reads();
    await comment_("a comment reads them");
    const perRead = reads() - before;
    expect(perRead).toBeGreaterThan(0); // one per open Argus comment
    const push = gh.pullRequestPayload("synchronize", repo, pull); // the head already reviewed: nothing else to do
    await deliver("pull_request", push);
    await deliver("pull_request", push);
    await settle();
    expect(reads()).toBe(before + perRead);
    // 31 s later (this process's clock), the next pull_request job reads them again.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 31_000 });
    try {
      await deliver("pull_request", push);
      await settle();
      expect(reads()).toBe(before + 2 * perRead);
    } finally {
      vi.useRealTimers();
    }
    expect(gh.rejected).toEqual([]);
  }, 120_000);

  it("a reply to an Argus comment is shown in the finding's thread and counts as the verdict it states", async () => {
    const { comment: argus, row } = postedOn(4);
    const posted = await row;
    const answer = await comment("pull_request_review_comment", repo, pull, {
      body: "Good catch, confirmed — rotating the key now.",
      login: "hubber",
      inReplyTo: argus.id,
    });
    expect(answer.status).toBe(202);
    const chat = await chatOf(posted.fingerprint);
    expect(chat.at(-1)).toMatchObject({
      authorId: "github:hubber",
      body: "Good catch, confirmed — rotating the key now.",
    });
    const votes = await votesOf(posted.fingerprint);
    expect(votes.find((v) => v.userId === "github:hubber")?.verdict).toBe("real");
    // The room's view of the votes names the person on GitHub.
    const events = await server.services.db.roomEvent.findMany({
      where: { room: reviewRoom(reviewUid), type: "finding_votes" },
      orderBy: { seq: "desc" },
      take: 1,
    });
    expect(events[0]!.payload).toContain("hubber (GitHub)");
  }, 60_000);

  async function comment_(body: string) {
    await comment("issue_comment", repo, pull, { body, login: "mona" });
  }
});

describe("a huge pull request", () => {
  it("is reviewed within .argus.yaml's max_files, and the summary says which files were skipped", async () => {
    const { repo, pull } = await openPr("acme/huge", 5201, {
      ".argus.yaml": "max_files: 2\n",
      "src/a.py": 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n',
      "src/b.py": "B = 1\n",
      "src/c.py": "C = 1\n",
      "src/d.py": "D = 1\n",
    });
    await deliver("pull_request", gh.pullRequestPayload("opened", repo, pull));
    await settle();
    expect(gh.rejected).toEqual([]);
    const summary = repo.issueComments[0]!.body;
    expect(summary).toMatch(/over the review's limits \(2 files/);
    expect(summary).toMatch(/3 files were not reviewed: `src\/b\.py`, `src\/c\.py`, `src\/d\.py`/);
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { repo: { fullName: "acme/huge" } } });
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    expect(JSON.parse(review.scope)).toMatchObject({ paths: [".argus.yaml", "src/a.py"] });
  }, 120_000);
});
