/**
 * A workspace's own GitHub App (this Argus has none in its environment), entered in Settings →
 * Integrations: sealed at rest, never returned, and used end to end — a delivery signed with the
 * workspace's webhook secret is taken for that workspace's installation and reviewed with the App's
 * key (the stand-in checks the JWT and every request against GitHub's OpenAPI description).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUpInNewWorkspace, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { startGitHubStandIn, type GitHubStandIn } from "../../test/helpers/github-stand-in.ts";

let gh: GitHubStandIn;
let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  gh = await startGitHubStandIn();
  const t = await createTestConfig({
    GITHUB_API_URL: gh.url,
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: new URL(gh.url).host,
  });
  server = await startTestServer(t);
  owner = await signUpInNewWorkspace(server, "Olga Owner");
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gh?.close();
});

interface Integrations {
  githubConfigured: boolean;
  app: { source: string | null; appId: number | null };
  installations: { installationId: number; repos: { fullName: string; mode: string; failOn: string | null }[] }[];
}

describe("a workspace's own GitHub App", () => {
  it("is sealed, never returned, and reviews the workspace's pull requests", async () => {
    const ws = { workspaceId: owner.workspaceId };
    const before = await owner.client.ok<Integrations>("query", "forges.installations", ws);
    expect(before).toMatchObject({ githubConfigured: false, app: { source: null } });

    const saved = await owner.client.ok("mutate", "forges.saveApp", {
      ...ws,
      appId: gh.appId,
      privateKey: gh.privateKey,
      webhookSecret: gh.webhookSecret,
    });
    expect(saved).toEqual({ source: "workspace", appId: gh.appId });
    const row = await server.services.db.forgeAppCredential.findUniqueOrThrow({
      where: { workspaceId: owner.workspaceId },
    });
    const pemBody = gh.privateKey.split("\n")[1]!;
    expect(JSON.stringify(row)).not.toContain(pemBody);
    expect(JSON.stringify(row)).not.toContain(gh.webhookSecret);
    await owner.client.ok("mutate", "forges.connect", { ...ws, forge: "github", installationId: gh.installationId });
    const listed = await owner.client.ok<Integrations>("query", "forges.installations", ws);
    expect(JSON.stringify(listed)).not.toContain(gh.webhookSecret);
    expect(listed.app).toEqual({ source: "workspace", appId: gh.appId });

    const repo = gh.addRepo("olga/app", 7001);
    const base = gh.commit(repo, { "README.md": "# app\n" });
    const head = gh.commit(repo, { "README.md": "# app\n", "keys.py": 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n' });
    const pull = gh.openPull(repo, { number: 4, title: "Keys", headRef: "keys", headSha: head, baseSha: base });
    const d = gh.delivery("pull_request", gh.pullRequestPayload("opened", repo, pull));
    const res = await fetch(`${server.url}/api/forges/github/webhook`, {
      method: "POST",
      headers: d.headers,
      body: d.body,
    });
    expect(res.status).toBe(202);
    for (let i = 0; i < 2; i++) {
      await server.services.queue.idle();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(gh.rejected).toEqual([]);
    expect(repo.reviews).toHaveLength(1);
    expect(repo.checkRuns).toHaveLength(1);

    // The repository's settings: reviewed on request, failing at high.
    const project = await server.services.db.project.findFirstOrThrow({ where: { name: "olga/app" } });
    await owner.client.ok("mutate", "forges.setRepoMode", {
      projectUid: project.uid,
      mode: "on_request",
      failOn: "high",
    });
    const after = await owner.client.ok<Integrations>("query", "forges.installations", ws);
    expect(after.installations[0]!.repos).toEqual([
      expect.objectContaining({ fullName: "olga/app", mode: "on_request", failOn: "high" }),
    ]);

    // Another secret signs nothing here.
    const forged = gh.delivery("pull_request", gh.pullRequestPayload("opened", repo, pull));
    forged.headers["x-hub-signature-256"] = `sha256=${"1".repeat(64)}`;
    const refused = await fetch(`${server.url}/api/forges/github/webhook`, {
      method: "POST",
      headers: forged.headers,
      body: forged.body,
    });
    expect(refused.status).toBe(401);

    await owner.client.ok("mutate", "forges.removeApp", ws);
    expect(await server.services.db.forgeAppCredential.count()).toBe(0);
  }, 120_000);
});
