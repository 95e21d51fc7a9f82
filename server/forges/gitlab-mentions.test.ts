/**
 * `@argus` in GitLab merge request notes, end to end against the GitLab stand-in (every request
 * checked against the shape GitLab documents): a question in a note is answered as a reply in that
 * note's discussion, its references linked to GitLab's blob lines at the head, and streams in the
 * review's room; a note in one of Argus's finding discussions asks about that finding; `@argus
 * review` reviews a project set to "on request"; Argus's own notes and bots' notes are never answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import {
  ARGUS_USER,
  startGitLabStandIn,
  type GitLabMr,
  type GitLabProject,
  type GitLabStandIn,
} from "../../test/helpers/gitlab-stand-in.ts";
import { reviewRoom } from "../shared/rooms.ts";
import { fingerprintOf } from "./markers.ts";

let gl: GitLabStandIn;
let server: TestServer;
let owner: TestUser;

const SETTINGS = [
  '"""Settings."""',
  "PAGE_SIZE = 50",
  'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"',
  'AWS_SECRET_ACCESS_KEY = "q8Jd0rT3xVbN5mW2kLp9ZsYc7HfGa1EuRiOo4TnB"',
  "",
].join("\n");

async function deliver(event: string, payload: unknown) {
  const d = gl.delivery(event, payload);
  const res = await fetch(`${server.url}/api/forges/gitlab/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  return { status: res.status, body: (await res.json()) as { message: string } };
}

/** Until the queue and the answers are idle (an answer's end queues its reply). */
async function settle() {
  for (let i = 0; i < 3; i++) {
    await server.services.queue.idle();
    await server.services.ask.idle();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function openMr(path: string, id: number, tree: Record<string, string>) {
  const project = gl.addProject(path, id);
  const base = gl.commit(project, { "README.md": "# r\n" });
  const head = gl.commit(project, { "README.md": "# r\n", ...tree });
  const mr = gl.openMr(project, {
    iid: 7,
    title: "Add settings",
    sourceBranch: "settings",
    baseSha: base,
    headSha: head,
  });
  return { project, mr };
}

/** A person's note on the MR, delivered as GitLab's Note Hook, and the discussion it is in. */
async function note(
  project: GitLabProject,
  mr: GitLabMr,
  body: string,
  opts: { discussionId?: string; username?: string } = {},
) {
  const payload = gl.userNote(project, mr, { body, username: opts.username ?? "dana", ...opts });
  const answer = await deliver("Note Hook", payload);
  await settle();
  const discussionId = (payload.object_attributes as { discussion_id: string }).discussion_id;
  return { ...answer, discussion: project.discussions.find((d) => d.id === discussionId)! };
}

beforeAll(async () => {
  gl = await startGitLabStandIn();
  const t = await createTestConfig({
    GITLAB_URL: gl.url,
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: new URL(gl.url).host,
    PUBLIC_URL: "https://argus.example",
  });
  server = await startTestServer(t);
  owner = await signUp(server.url, { name: "Owner" });
  gl.addGroup("acme");
  await owner.client.ok("mutate", "forges.connectGitLab", {
    workspaceId: owner.workspaceId,
    namespace: "acme",
    token: gl.token,
    webhookSecret: gl.webhookSecret,
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gl?.close();
});

describe("@argus in a merge request note", () => {
  let project: GitLabProject;
  let mr: GitLabMr;

  it("a question is answered in the note's discussion, linked to GitLab's lines at the head, and streams in the review room", async () => {
    ({ project, mr } = await openMr("acme/shop", 310, { "src/settings.py": SETTINGS }));
    expect((await deliver("Merge Request Hook", gl.mergeRequestPayload(project, mr, "open"))).status).toBe(202);
    await settle();
    const findings = project.discussions.length;
    expect(findings).toBeGreaterThanOrEqual(1);

    const asked = await note(project, mr, "@argus where is AWS_SECRET_ACCESS_KEY validated?");
    expect(asked.status).toBe(202);
    expect(gl.rejected).toEqual([]);
    // The answer is a reply in the same discussion, by Argus: no new discussion, no new MR note.
    expect(project.discussions).toHaveLength(findings + 1);
    expect(project.notes).toHaveLength(1); // the summary
    expect(asked.discussion.notes).toHaveLength(2);
    const reply = asked.discussion.notes[1]!;
    expect(reply.author).toBe(ARGUS_USER);
    // No model here: the answer is the code-search hits, each a link to GitLab's blob lines at the head.
    const head = mr.heads.at(-1)!;
    expect(reply.body).toMatch(
      new RegExp(`\\]\\(https://gitlab\\.example/acme/shop/-/blob/${head}/src/settings\\.py#L\\d+(-\\d+)?\\)`),
    );
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { repo: { fullName: "acme/shop" } } });
    expect(reply.body).toContain(`https://argus.example/reviews/${pr.lastReviewUid}`);

    // The question and its answer are a conversation of the review's room, asked by the GitLab user.
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    const thread = await server.services.db.askThread.findFirstOrThrow({ where: { reviewId: review.id } });
    expect(thread.createdById).toBe("gitlab:dana");
    const events = await server.services.db.roomEvent.findMany({
      where: { room: reviewRoom(review.uid), type: "ask.message" },
    });
    const messages = events.map(
      (e) => JSON.parse(e.payload) as { message: { kind: string; author: { name: string } | null; status: string } },
    );
    expect(messages.some((m) => m.message.kind === "question" && m.message.author?.name === "dana (GitLab)")).toBe(
      true,
    );
    expect(messages.some((m) => m.message.kind === "answer" && m.message.status === "done")).toBe(true);
  }, 120_000);

  it("Argus's own reply (it says @argus) and a bot's note are not answered: no loop", async () => {
    const answered = project.discussions.find((d) => d.notes.length === 2 && d.notes[1]!.author === ARGUS_USER)!;
    const own = answered.notes[1]!;
    expect(own.body).toContain("@argus");
    const echo = await deliver("Note Hook", gl.notePayload(project, mr, answered, own));
    expect(echo.status).toBe(200);
    expect(echo.body.message).toMatch(/Argus's own note/);
    const bot = await note(project, mr, "@argus summarise this MR", { username: "project_310_bot_0a1b2c" });
    expect(bot.status).toBe(200);
    expect(bot.body.message).toMatch(/bot/);
    const plain = await note(project, mr, "looks good to me");
    expect(plain.status).toBe(200);
    await settle();
    expect(answered.notes).toHaveLength(2);
    expect(bot.discussion.notes).toHaveLength(1);
    expect(plain.discussion.notes).toHaveLength(1);
    expect(project.notes).toHaveLength(1);
  }, 60_000);

  it("a note in one of Argus's finding discussions asks about that finding, answered there", async () => {
    const finding = project.discussions.find((d) => fingerprintOf(d.notes[0]!.body))!;
    const asked = await note(project, mr, "@argus is this key really live?", { discussionId: finding.id });
    expect(asked.status).toBe(202);
    expect(gl.rejected).toEqual([]);
    expect(finding.notes).toHaveLength(3);
    expect(finding.notes[2]!.author).toBe(ARGUS_USER);
    expect(finding.notes[2]!.body).toContain("Asked with @argus");
    const thread = await server.services.db.askThread.findFirstOrThrow({
      where: { fingerprint: fingerprintOf(finding.notes[0]!.body)! },
    });
    expect(thread.context).toBeTruthy(); // the finding is the question's context
  }, 120_000);

  it("a note on a project outside the connection is 404", async () => {
    const other = gl.addProject("other/repo", 999);
    const payload = gl.userNote(other, mr, { body: "@argus hello", username: "dana" });
    const answer = await deliver("Note Hook", payload);
    expect(answer.status).toBe(404);
    expect(answer.body.message).toContain("other/repo");
  });
});

describe("`@argus review` on GitLab", () => {
  it("reviews a project set to on request, answered in the note's discussion with the room's link", async () => {
    const { project, mr } = await openMr("acme/quiet", 320, { "src/settings.py": SETTINGS });
    const installation = await server.services.db.forgeInstallation.findFirstOrThrow({ where: { forge: "gitlab" } });
    const argusProject = await server.services.db.project.create({
      data: { uid: crypto.randomUUID(), workspaceId: owner.workspaceId, name: "acme/quiet", sourceKind: "gitlab" },
    });
    await server.services.db.forgeRepo.create({
      data: {
        installationId: installation.id,
        externalId: "320",
        fullName: "acme/quiet",
        projectId: argusProject.id,
        mode: "on_request",
      },
    });
    expect((await deliver("Merge Request Hook", gl.mergeRequestPayload(project, mr, "open"))).status).toBe(202);
    await settle();
    expect(project.discussions).toHaveLength(0);
    expect(project.statuses).toHaveLength(0);

    const asked = await note(project, mr, "@argus review");
    expect(asked.status).toBe(202);
    expect(gl.rejected).toEqual([]);
    expect(project.statuses).toHaveLength(1);
    expect(project.discussions.filter((d) => d.position)).not.toHaveLength(0);
    expect(asked.discussion.notes).toHaveLength(2);
    expect(asked.discussion.notes[1]!.body).toMatch(
      /^Reviewing `[0-9a-f]{7}` now .*https:\/\/argus\.example\/reviews\/[0-9a-f-]{36}/,
    );
  }, 120_000);
  it("says why not in GitLab's words: a closed merge request, not a pull request", async () => {
    const { project, mr } = await openMr("acme/closed", 321, { "src/settings.py": SETTINGS });
    mr.state = "closed";
    const asked = await note(project, mr, "@argus review");
    expect(asked.status).toBe(202);
    expect(gl.rejected).toEqual([]);
    expect(project.statuses).toHaveLength(0);
    expect(asked.discussion.notes).toHaveLength(2);
    const reply = asked.discussion.notes[1]!.body;
    expect(reply).toMatch(/^This merge request is closed: Argus reviews open ones\./);
    expect(reply).not.toMatch(/pull request/i);
  }, 120_000);
});
