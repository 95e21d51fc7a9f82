/**
 * The agent reviews a pull request with the repository's own guidance: AGENTS.md and `.argus.yaml`
 * instructions reach the model (a scripted LLM records what it was sent), under the workspace's prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { startGitHubStandIn, type GitHubStandIn } from "../../test/helpers/github-stand-in.ts";
import { startServer as startScripted } from "../llm/test-support.ts";

let gh: GitHubStandIn;
let llm: Awaited<ReturnType<typeof startScripted>>;
let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  gh = await startGitHubStandIn();
  llm = await startScripted({ rules: [{ match: "", text: "No findings." }] });
  const t = await createTestConfig({
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
    PUBLIC_URL: "https://argus.example",
  });
  server = await startTestServer(t);
  owner = await signUp(server.url, { name: "Owner" });
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: owner.workspaceId,
    uid: crypto.randomUUID(),
    name: "scripted",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-5-5",
    apiKey: "sk-test",
  });
  await server.services.db.forgeInstallation.create({
    data: { workspaceId: owner.workspaceId, forge: "github", externalId: String(gh.installationId) },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await llm?.close();
  await gh?.close();
});

describe("the repository's guidance", () => {
  it("AGENTS.md and .argus.yaml instructions are given to the agent with the workspace's prompt", async () => {
    const repo = gh.addRepo("acme/pay", 9101);
    const base = gh.commit(repo, { "README.md": "# pay\n" });
    const head = gh.commit(repo, {
      "README.md": "# pay\n",
      "AGENTS.md": "Amounts are integers in cents.\n",
      ".argus.yaml": "instructions: Flag any float arithmetic on money.\n",
      "src/pay.py": "def total(a, b):\n    return a + b\n",
    });
    const pull = gh.openPull(repo, { number: 1, title: "Pay", headRef: "pay", headSha: head, baseSha: base });
    const d = gh.delivery("pull_request", gh.pullRequestPayload("opened", repo, pull));
    const res = await fetch(`${server.url}/api/forges/github/webhook`, {
      method: "POST",
      headers: d.headers,
      body: d.body,
    });
    expect(res.status).toBe(202);
    for (let i = 0; i < 3; i++) {
      await server.services.queue.idle();
      await new Promise((r) => setTimeout(r, 50));
    }
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { repo: { fullName: "acme/pay" } } });
    const review = await server.services.db.review.findUniqueOrThrow({ where: { uid: pr.lastReviewUid! } });
    expect(review.engine).toBe("agent");
    expect(review.promptContent).toContain("## The repository's own guidance");
    expect(review.promptContent).toContain("### AGENTS.md\n\nAmounts are integers in cents.");
    expect(review.promptContent).toContain("Flag any float arithmetic on money.");
    const sent = llm.requests.map((r) => JSON.stringify(r.body)).join("\n");
    expect(sent).toContain("Amounts are integers in cents.");
  }, 120_000);
});
