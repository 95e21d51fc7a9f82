import { expect, test } from "@playwright/test";
import { startGitHubStandIn, type GitHubStandIn } from "../test/helpers/github-stand-in.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Settings → Integrations in the browser: an owner enters the workspace's own GitHub App and
// connects its installation; a pull request on the GitHub stand-in (playwright.config.ts points
// GITHUB_API_URL at it) is reviewed; the repository's mode is set; the review's room shows the PR
// (title, branch, link) and each posted finding's link on the PR.
test.describe.configure({ mode: "serial" });
inOwnWorkspace("Integrations");

const port = Number(process.env.E2E_PORT ?? 3210) + 7;
let gh: GitHubStandIn;

test.beforeAll(async () => {
  gh = await startGitHubStandIn({ port, installationId: 9_000_000 + Math.floor(Math.random() * 1e6) });
});
test.afterAll(async () => {
  await gh?.close();
});

test("an owner enters the workspace's GitHub App and connects its installation", async ({ page }) => {
  await signUpOrSignIn(page);
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Integrations" })).toBeVisible();
  await page.getByLabel("App ID").fill(String(gh.appId));
  await page.getByLabel("Private key").fill(gh.privateKey);
  await page.getByLabel("Webhook secret").fill(gh.webhookSecret);
  await page.getByRole("button", { name: "Save the App" }).click();
  await expect(page.getByTestId("workspace-app")).toContainText(`ID ${gh.appId}`);
  // The key is never shown again: the field is empty, and the page does not carry it.
  await expect(page.getByLabel("Private key")).toHaveValue("");
  expect(await page.content()).not.toContain(gh.webhookSecret);

  await page.getByLabel("Installation ID").fill(String(gh.installationId));
  await page.getByRole("button", { name: "Connect" }).click();
  await expect(page.getByTestId("forge-installation")).toContainText(`Installation ${gh.installationId}`);
});

test("a PR's review room shows the PR and its findings' links; the repository's mode is set", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const repo = gh.addRepo("ada/shop", 8001);
  const base = gh.commit(repo, { "README.md": "# shop\n" });
  const head = gh.commit(repo, {
    "README.md": "# shop\n",
    "app/keys.py": 'REGION = "eu"\nAWS_ACCESS_KEY_ID = "AKIAZ7Q3LM2KD9XW4PRT"\n',
  });
  const pull = gh.openPull(repo, {
    number: 3,
    title: "Add keys",
    headRef: "feature/keys",
    headSha: head,
    baseSha: base,
  });
  const d = gh.delivery("pull_request", gh.pullRequestPayload("opened", repo, pull));
  const res = await page.request.post("/api/forges/github/webhook", { headers: d.headers, data: d.body });
  expect(res.status()).toBe(202);
  // Webhook → import → static review → publish (the check run is written last).
  await expect
    .poll(() => repo.checkRuns.length, { timeout: 60_000 })
    .toBe(1)
    .catch((err: Error) => {
      throw new Error(`${err.message}\nrequests: ${gh.requests.join(", ")}\nrefused: ${gh.rejected.join(", ")}`);
    });
  expect(gh.rejected).toEqual([]);
  expect(repo.comments.length).toBeGreaterThan(0);

  // The repository appears with its first pull request; the owner sets it to be reviewed on request.
  await page.goto("/settings");
  const mode = page.getByLabel("Review mode of ada/shop");
  await expect(mode).toHaveValue("auto");
  await mode.selectOption("on_request");
  await expect(page.getByText("ada/shop: saved.")).toBeVisible();
  await page.getByLabel("Fail the check of ada/shop at").selectOption("high");
  await page.reload();
  await expect(page.getByLabel("Review mode of ada/shop")).toHaveValue("on_request");
  await expect(page.getByLabel("Fail the check of ada/shop at")).toHaveValue("high");

  const roomLink = /\/reviews\/([0-9a-f-]{36})/.exec(repo.issueComments[0]!.body)![1]!;
  await page.goto(`/reviews/${roomLink}`);
  const pr = page.getByLabel("Pull request");
  await expect(pr.getByRole("link", { name: /Add keys #3/ })).toHaveAttribute(
    "href",
    "https://github.example/ada/shop/pull/3",
  );
  await expect(pr.getByText("feature/keys")).toBeVisible();
  const onPr = page.getByLabel("Findings on the pull request").getByRole("link", { name: "app/keys.py:2" });
  await expect(onPr).toHaveAttribute(
    "href",
    `https://github.example/ada/shop/pull/3#discussion_r${repo.comments[0]!.id}`,
  );
});
