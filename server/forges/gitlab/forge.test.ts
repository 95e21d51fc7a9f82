/**
 * The GitLab adapter against the stand-in, without the server: what a reviewer sees on the merge
 * request (suggestions GitLab can apply, anchors on added lines, one note edited), what it never
 * sends (the token anywhere but the Authorization header; a request the outbound policy refuses),
 * and the stand-in itself refusing what GitLab would.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLog } from "../../../test/helpers/log.ts";
import { startGitLabStandIn, type GitLabStandIn } from "../../../test/helpers/gitlab-stand-in.ts";
import { createOutboundPolicy } from "../../net/outbound.ts";
import { StaleLineError } from "../types.ts";
import { fingerprintOf } from "../markers.ts";
import { createGitLabClient, gitLabWaitMs } from "./client.ts";
import { blobLineUrl, gitLabForge, gitLabSuggestion } from "./forge.ts";
import { withNoteMarker } from "./notes.ts";

let gl: GitLabStandIn;
const captured = captureLog();
const outbound = () => createOutboundPolicy({ allow: [new URL(gl.url).host] });
const forge = (sleeps: number[] = []) =>
  gitLabForge(
    createGitLabClient({
      url: gl.url,
      token: gl.token,
      fetch: outbound().fetch,
      log: captured.log,
      sleep: async (ms) => void sleeps.push(ms),
    }),
  );

beforeAll(async () => {
  gl = await startGitLabStandIn();
});
afterAll(() => gl.close());

describe("suggestions GitLab can apply", () => {
  it("rewrites the fence to GitLab's -above+below form around the anchor line", () => {
    const body = "🔴 **high: x**\n\nwhy\n\n```suggestion\nA = os.environ['A']\n```";
    expect(gitLabSuggestion(body, 0, 0)).toContain("```suggestion:-0+0\nA = os.environ['A']\n```");
    expect(gitLabSuggestion(body, 2, 1)).toContain("```suggestion:-2+1\n");
    // A longer fence (code with backticks inside) keeps its length.
    expect(gitLabSuggestion("````suggestion\na = `x`\n````", 1, 0)).toBe("````suggestion:-1+0\na = `x`\n````");
    expect(gitLabSuggestion("no block here", 1, 1)).toBe("no block here");
  });
});

describe("the adapter", () => {
  it("anchors each discussion on an added line, keeps a multi-line suggestion on its range, and posts nothing twice", async () => {
    const p = gl.addProject("team/web", 41);
    const base = gl.commit(p, { "a.py": "x = 1\ny = 2\nz = 3\n" });
    // Lines 2–3 changed, line 4 added; line 1 is context.
    const head = gl.commit(p, { "a.py": "x = 1\nY = 20\nZ = 30\nw = 4\n" });
    gl.openMr(p, { iid: 2, title: "t", sourceBranch: "b", baseSha: base, headSha: head });
    const ref = { repo: "team/web", number: 2 };
    const f = forge();
    const review = {
      commitSha: head,
      body: "",
      comments: [
        // A range 1–3 whose last line is added: anchored on 3, the suggestion replaces 1–3.
        {
          fingerprint: "fp-range",
          path: "a.py",
          startLine: 1,
          line: 3,
          body: "r\n\n```suggestion\nx = 1\nY = 2\nZ = 3\n```",
        },
        { fingerprint: "fp-one", path: "a.py", line: 4, body: "one\n\n```suggestion\nw = 5\n```" },
      ],
    };
    const posted = await f.postReview(ref, review);
    expect(posted.map((x) => x.fingerprint)).toEqual(["fp-range", "fp-one"]);
    expect(posted.every((x) => x.commentId === x.threadId)).toBe(true);
    const [range, one] = p.discussions;
    expect(range!.position).toMatchObject({ new_line: 3, old_path: "a.py", new_path: "a.py" });
    expect(range!.position!.line_range).toBeUndefined(); // line 1 is context: one line, as before
    expect(range!.notes[0]!.body).toContain("```suggestion:-2+0");
    expect(one!.position).toMatchObject({ new_line: 4 });
    expect(one!.notes[0]!.body).toContain("```suggestion:-0+0");
    expect(fingerprintOf(one!.notes[0]!.body.replace(/\r\n/g, "\n"))).toBe("fp-one");

    // Posting the same review again (a retried job) finds both and creates nothing.
    const again = await f.postReview(ref, review);
    expect(again.map((x) => x.commentId)).toEqual(posted.map((x) => x.commentId));
    expect(p.discussions).toHaveLength(2);

    // A range on context lines only is no place for a discussion: refused before anything is posted.
    await expect(
      f.postReview(ref, { ...review, comments: [{ fingerprint: "fp-ctx", path: "a.py", line: 1, body: "c" }] }),
    ).rejects.toBeInstanceOf(StaleLineError);
    // A head that is no diff version of the MR (a newer push): stale as well.
    await expect(f.postReview(ref, { ...review, commitSha: base })).rejects.toBeInstanceOf(StaleLineError);
    expect(p.discussions).toHaveLength(2);

    // One summary note, edited; resolve and reply address the discussion.
    const id = await f.upsertSummary(ref, null, "first");
    expect(await f.upsertSummary(ref, id, "second")).toBe(id);
    // Every note Argus writes is marked as its own (an `@argus` in it never answers itself).
    expect(p.notes).toEqual([expect.objectContaining({ body: withNoteMarker("second"), edits: 1 })]);
    await f.resolveThread(ref, posted[0]!.commentId);
    await f.reply(ref, posted[1]!.commentId, "thanks");
    expect(range!.resolved).toBe(true);
    expect(one!.notes.map((n) => n.body)).toEqual([expect.any(String), withNoteMarker("thanks")]);

    // The check: neutral is a success that says so; failure is failed.
    await f.upsertCheck(ref, null, {
      headSha: head,
      conclusion: "neutral",
      title: "2 findings",
      summary: "",
      annotations: [],
    });
    expect(p.statuses.at(-1)).toMatchObject({ state: "success", name: "Argus" });
    expect(p.statuses.at(-1)!.description).toMatch(/informational/);
    await f.upsertCheck(ref, null, {
      headSha: head,
      conclusion: "failure",
      title: "1 at high",
      summary: "",
      annotations: [],
    });
    expect(p.statuses).toHaveLength(1); // one status per commit and name, replaced
    expect(p.statuses[0]).toMatchObject({ state: "failed", description: "1 at high" });
    expect(gl.rejected).toEqual([]);
  });

  it("a finding over three added lines is one discussion on the whole range (GitLab's line_range)", async () => {
    const p = gl.addProject("team/range", 44);
    const base = gl.commit(p, { "a.py": "x = 1\ny = 2\nz = 3\n" });
    // Lines 2–4 are added (2–3 replace y and z): the old side stands at line 4 for all three.
    const head = gl.commit(p, { "a.py": "x = 1\nY = 20\nZ = 30\nw = 4\n" });
    gl.openMr(p, { iid: 1, title: "t", sourceBranch: "b", baseSha: base, headSha: head });
    const [posted] = await forge().postReview(
      { repo: "team/range", number: 1 },
      {
        commitSha: head,
        body: "",
        comments: [
          { fingerprint: "fp-3", path: "a.py", startLine: 2, line: 4, body: "r\n\n```suggestion\na\nb\nc\n```" },
        ],
      },
    );
    expect(posted?.fingerprint).toBe("fp-3");
    const [d] = p.discussions;
    const file = createHash("sha1").update("a.py").digest("hex");
    expect(d!.position).toMatchObject({
      new_line: 4,
      line_range: {
        start: { line_code: `${file}_4_2`, type: "new", new_line: 2 },
        end: { line_code: `${file}_4_4`, type: "new", new_line: 4 },
      },
    });
    expect(d!.notes[0]!.body).toContain("```suggestion:-2+0");
    expect(gl.rejected).toEqual([]);
  });

  it("links a file's lines to GitLab's blob page at a commit", () => {
    const mr = "https://gitlab.example/acme/shop/-/merge_requests/7";
    expect(blobLineUrl(mr, "abc123", "src/my file.py", 3, 5)).toBe(
      "https://gitlab.example/acme/shop/-/blob/abc123/src/my%20file.py#L3-5",
    );
    expect(blobLineUrl(mr, "abc123", "a.py", 3)).toBe("https://gitlab.example/acme/shop/-/blob/abc123/a.py#L3");
  });

  it("reads the MR, its diff, a push's files and the head archive; a deleted MR is ForgeGoneError", async () => {
    const p = gl.addProject("team/api", 42);
    const base = gl.commit(p, { "r.md": "a\n" });
    const h1 = gl.commit(p, { "r.md": "a\n", "n.py": "n = 1\n" });
    const mr = gl.openMr(p, { iid: 5, title: "New", sourceBranch: "feat", baseSha: base, headSha: h1, draft: true });
    const h2 = gl.commit(p, { "r.md": "b\n", "n.py": "n = 1\n" });
    gl.push(mr, h2);
    const f = forge();
    const ref = { repo: "team/api", number: 5 };
    expect(await f.pull(ref)).toMatchObject({
      number: 5,
      draft: true,
      state: "open",
      headRef: "feat",
      headSha: h2,
      baseSha: base,
    });
    expect((await f.diff(ref)).map((d) => [d.path, d.status])).toEqual([
      ["n.py", "added"],
      ["r.md", "modified"],
    ]);
    expect(await f.changedBetween("team/api", h1, h2)).toEqual([{ path: "r.md", status: "modified" }]);
    expect(await f.changedBetween("team/api", "0".repeat(40), h2)).toBeNull();
    // One file at a commit, bytes as they are (a push is built from them); not there → null.
    expect((await f.fileAt!("team/api", h2, "r.md"))?.toString()).toBe("b\n");
    expect(await f.fileAt!("team/api", h1, "missing.py")).toBeNull();
    const dest = `${process.env.TMPDIR ?? "/tmp"}/gl-archive-${Date.now()}.zip`;
    await f.downloadArchive("team/api", h2, dest);
    const { readFile, rm } = await import("node:fs/promises");
    expect((await readFile(dest)).subarray(0, 2).toString()).toBe("PK");
    await rm(dest);
    await expect(f.pull({ repo: "team/api", number: 99 })).rejects.toMatchObject({ name: "ForgeGoneError" });
    expect(gl.rejected).toEqual([]);
  });

  it("waits out a 429 as GitLab asks, and never logs or sends the token elsewhere", async () => {
    const p = gl.addProject("team/rl", 43);
    const base = gl.commit(p, { "r.md": "a\n" });
    gl.openMr(p, { iid: 1, title: "t", sourceBranch: "b", baseSha: base, headSha: gl.commit(p, { "r.md": "b\n" }) });
    gl.failNext({ method: "GET", route: "merge_requests/show", status: 429, headers: { "retry-after": "7" } });
    gl.failNext({ method: "GET", route: "merge_requests/show", status: 429, headers: {} });
    const sleeps: number[] = [];
    await forge(sleeps).pull({ repo: "team/rl", number: 1 });
    expect(sleeps).toEqual([7000, 60_000]);
    expect(captured.text()).toContain("GitLab rate limit");
    expect(captured.text()).not.toContain(gl.token);
    expect(
      gitLabWaitMs(new Headers({ "ratelimit-reset": String(Math.floor(Date.now() / 1000) + 30) })),
    ).toBeGreaterThan(25_000);
  });

  it("goes through the outbound policy: a GitLab host the operator did not allow is refused", async () => {
    const refused = gitLabForge(
      createGitLabClient({
        url: gl.url,
        token: gl.token,
        fetch: createOutboundPolicy({ allow: [] }).fetch,
        log: captured.log,
      }),
    );
    const before = gl.requests.length;
    await expect(refused.pull({ repo: "team/rl", number: 1 })).rejects.toThrow(/not allowed|refused|private|loopback/i);
    expect(gl.requests.length).toBe(before);
  });
});

describe("the stand-in refuses what GitLab would", () => {
  it("401 without the token; 400 on an unknown parameter or a position field of the wrong type; 404 on an endpoint Argus must not call", async () => {
    gl.addProject("o/r", 1);
    expect((await fetch(`${gl.url}/api/v4/projects/o%2Fr`)).status).toBe(401);
    const auth = { authorization: `Bearer ${gl.token}` };
    expect((await fetch(`${gl.url}/api/v4/projects/o%2Fr?bogus=1`, { headers: auth })).status).toBe(400);
    const form = new FormData();
    form.append("body", "x");
    form.append("position[new_line]", "three");
    const bad = await fetch(`${gl.url}/api/v4/projects/o%2Fr/merge_requests/1/discussions`, {
      method: "POST",
      headers: auth,
      body: form,
    });
    expect(bad.status).toBe(400);
    expect(gl.rejected.at(-1)).toContain("discussions/create");
    const status = await fetch(`${gl.url}/api/v4/projects/o%2Fr/statuses/abc123`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ state: "neutral" }),
    });
    expect(status.status).toBe(400);
    expect(
      (await fetch(`${gl.url}/api/v4/projects/o%2Fr/merge_requests/1/merge`, { method: "PUT", headers: auth })).status,
    ).toBe(404);
    gl.rejected.length = 0;
  });
});
