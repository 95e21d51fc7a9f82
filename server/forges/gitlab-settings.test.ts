/**
 * What Settings → Integrations needs from the server for GitLab, against the GitLab stand-in: a
 * refusal is said under the field it is about (a token GitLab refused → `token`, a path it cannot see
 * → `namespace`), the webhook URL to paste into GitLab, and members seeing the connections (and
 * their projects' settings) without being able to change them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { startGitLabStandIn, type GitLabStandIn } from "../../test/helpers/gitlab-stand-in.ts";
import { inviteAndSignUp, signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";

let gl: GitLabStandIn;
let server: TestServer;
let owner: TestUser;
let member: TestUser;

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
  member = await inviteAndSignUp(owner, "member", "Member");
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gl?.close();
});

const connect = (user: TestUser, input: { namespace: string; token: string; webhookSecret?: string }) =>
  user.client.mutate("forges.connectGitLab", {
    workspaceId: user.workspaceId,
    webhookSecret: gl.webhookSecret,
    ...input,
  });

describe("Settings → Integrations for GitLab", () => {
  it("says which field GitLab's refusal is about, and never echoes the token", async () => {
    gl.addProject("acme/shop", 410);
    const badToken = await connect(owner, { namespace: "acme/shop", token: "glpat-not-the-token" });
    expect(badToken.status).toBe(400);
    expect(badToken.error?.data.fieldErrors).toEqual({
      token: ["GitLab refused the access token (expired, revoked or mistyped)."],
    });
    expect(JSON.stringify(badToken.body)).not.toContain("glpat-not-the-token");

    const unseen = await connect(owner, { namespace: "acme/elsewhere", token: gl.token });
    expect(unseen.status).toBe(400);
    expect(unseen.error?.data.fieldErrors?.namespace?.[0]).toContain("cannot see a project or group at acme/elsewhere");
    expect(JSON.stringify(unseen.body)).not.toContain(gl.token);
  });

  it("gives the GitLab and the webhook URL to paste into it", async () => {
    const setup = await owner.client.ok("query", "forges.gitlabSetup", { workspaceId: owner.workspaceId });
    expect(setup).toEqual({ gitlabUrl: gl.url, webhookUrl: "https://argus.example/api/forges/gitlab/webhook" });
  });

  it("shows members the connections and their projects' settings, read-only", async () => {
    await owner.client.ok("mutate", "forges.connectGitLab", {
      workspaceId: owner.workspaceId,
      namespace: "acme/shop",
      token: gl.token,
      webhookSecret: gl.webhookSecret,
    });
    const seen = await member.client.ok<{ namespace: string; repos: unknown[] }[]>(
      "query",
      "forges.gitlabConnections",
      { workspaceId: owner.workspaceId },
    );
    expect(seen).toMatchObject([{ namespace: "acme/shop", kind: "project", repos: [] }]);
    expect(JSON.stringify(seen)).not.toContain(gl.token);
    expect(JSON.stringify(seen)).not.toContain(gl.webhookSecret);
    const setup = await member.client.query("forges.gitlabSetup", { workspaceId: owner.workspaceId });
    expect(setup.status).toBe(200);

    const disconnect = await member.client.mutate("forges.disconnectGitLab", {
      workspaceId: owner.workspaceId,
      namespace: "acme/shop",
    });
    expect(disconnect.status).toBe(403);
    const again = await connect(member, { namespace: "acme/other", token: gl.token });
    expect(again.status).toBe(403);
    expect(gl.rejected).toEqual([]);
  });
});
