/**
 * The GitHub stand-in refuses what GitHub would: the checks behind every forge test must themselves
 * fail on an undocumented path, a body missing a required field or of the wrong shape, and a request
 * without the App's credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../../test/helpers/github-stand-in.ts";
import { gitHubOpenApi } from "../../../test/helpers/github-openapi.ts";

let gh: GitHubStandIn;
beforeAll(async () => {
  gh = await startGitHubStandIn();
});
afterAll(() => gh.close());

describe("the OpenAPI check", () => {
  const api = () => gitHubOpenApi();
  const url = (p: string) => new URL(p, "http://x");

  it("accepts a documented operation with a body that fits its schema", () => {
    const ok = api().check("POST", url("/repos/a/b/check-runs"), { name: "Argus", head_sha: "abc" });
    expect(ok).toMatchObject({ ok: true, op: { operationId: "checks/create", params: { owner: "a", repo: "b" } } });
  });

  it("refuses an unknown path, a wrong method, a missing required field, a wrong type and an unknown query parameter", () => {
    expect(api().check("GET", url("/repos/a/b/not-a-thing"), undefined)).toMatchObject({ ok: false, status: 404 });
    expect(api().check("DELETE", url("/repos/a/b/check-runs"), undefined)).toMatchObject({ ok: false, status: 404 });
    const missing = api().check("POST", url("/repos/a/b/check-runs"), { name: "Argus" });
    expect(missing).toMatchObject({ ok: false, status: 422 });
    expect(!missing.ok && missing.reason).toContain("head_sha");
    const comment = api().check("POST", url("/repos/a/b/pulls/1/reviews"), {
      comments: [{ path: "x", line: "3", body: "b" }],
    });
    expect(comment).toMatchObject({ ok: false, status: 422 });
    expect(api().check("GET", url("/repos/a/b/pulls/1?bogus=1"), undefined)).toMatchObject({ ok: false, status: 422 });
    expect(api().check("GET", url("/repos/a/b/pulls/abc"), undefined)).toMatchObject({ ok: false });
  });
});

describe("the stand-in server", () => {
  it("answers 401 without a token it minted, and lists a refused request", async () => {
    gh.addRepo("o/r", 1);
    const noToken = await fetch(`${gh.url}/repos/o/r/pulls/1`);
    expect(noToken.status).toBe(401);
    const bad = await fetch(`${gh.url}/repos/o/r/check-runs`, {
      method: "POST",
      headers: { authorization: "token ghs_x", "content-type": "application/json" },
      body: JSON.stringify({ name: 1 }),
    });
    expect(bad.status).toBe(422);
    expect(gh.rejected.at(-1)).toContain("checks/create body");
  });
});
