import { expect, test } from "@playwright/test";
import { startGitHubStandIn, type GitHubStandIn } from "../test/helpers/github-stand-in.ts";
import { startGitLabStandIn, type GitLabStandIn } from "../test/helpers/gitlab-stand-in.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { signUpOrSignIn } from "./support/owner.ts";

// Settings → Integrations in the browser: an owner enters the workspace's own GitHub App and
// connects its installation; a pull request on the GitHub stand-in (playwright.config.ts points
// GITHUB_API_URL at it) is reviewed; the repository's mode is set; the review's room shows the PR
// (title, branch, link) and each posted finding's link on the PR. Then GitLab (GITLAB_URL points at a
// GitLab stand-in): field errors under their fields, a connection saved with its token masked, its
// project's mode after a merge request, and Disconnect after a confirmation.
test.describe.configure({ mode: "serial" });
inOwnWorkspace("Integrations");

const port = Number(process.env.E2E_PORT ?? 3210) + 7;
let gh: GitHubStandIn;
let gl: GitLabStandIn;

test.beforeAll(async () => {
  gh = await startGitHubStandIn({ port, installationId: 9_000_000 + Math.floor(Math.random() * 1e6) });
  gl = await startGitLabStandIn({ port: port + 1 });
});
test.afterAll(async () => {
  await gh?.close();
  await gl?.close();
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
  await page.getByRole("button", { name: "Connect", exact: true }).click();
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

test("an owner connects a GitLab project: errors under their fields, the token never shown again", async ({ page }) => {
  test.setTimeout(120_000);
  await signUpOrSignIn(page);
  const path = `ada-${Date.now().toString(36)}/shop`;
  const project = gl.addProject(path, 7001);
  await page.goto("/settings");
  const gitlab = page.getByRole("region", { name: "GitLab" });
  await expect(gitlab.getByTestId("gitlab-empty")).toContainText("No GitLab project or group is connected yet");
  await expect(gitlab.getByTestId("gitlab-webhook-url")).toHaveText(
    /^http:\/\/localhost:\d+\/api\/forges\/gitlab\/webhook$/,
  );
  await expect(gitlab.getByLabel("GitLab URL")).toHaveValue(gl.url);
  const under = (label: string) => gitlab.getByLabel(label, { exact: true }).locator("..").getByRole("alert");

  // What the server checks without GitLab: the path's form and the secret's length, each under its field.
  await gitlab.getByLabel("Project or group path").fill("ada shop!");
  await gitlab.getByLabel("Access token").fill("glpat-not-the-token");
  await gitlab.getByLabel("Secret token").fill("too-short");
  await gitlab.getByLabel("Secret token").press("Enter");
  await expect(under("Project or group path")).toContainText("full path, as in its URL");
  await expect(under("Secret token")).toHaveText("A webhook secret of at least 16 characters.");
  await expect(gitlab.getByLabel("Project or group path")).toBeFocused();

  // A token GitLab refuses: the message is under the token, and nothing is stored.
  await gitlab.getByLabel("Project or group path").fill(path);
  await gitlab.getByLabel("Secret token").fill(gl.webhookSecret);
  await gitlab.getByRole("button", { name: "Connect GitLab" }).click();
  await expect(under("Access token")).toHaveText("GitLab refused the access token (expired, revoked or mistyped).");
  await expect(gitlab.getByLabel("Access token")).toBeFocused();
  await expect(under("Project or group path")).toHaveCount(0);

  // The token the stand-in accepts: connected, the fields emptied, the token and secret nowhere on the page.
  await gitlab.getByLabel("Access token").fill(gl.token);
  await gitlab.getByLabel("Access token").press("Enter");
  const row = gitlab.getByTestId("gitlab-connection");
  await expect(row).toContainText(path);
  await expect(row).toContainText("token saved");
  await expect(gitlab.getByLabel("Access token")).toHaveValue("");
  await expect(gitlab.getByLabel("Secret token")).toHaveValue("");
  await page.reload();
  await expect(page.getByRole("region", { name: "GitLab" }).getByTestId("gitlab-connection")).toContainText(path);
  expect(await page.content()).not.toContain(gl.token);
  expect(await page.content()).not.toContain(gl.webhookSecret);

  // A merge request links the project; the owner sets it to be reviewed on request.
  const base = gl.commit(project, { "README.md": "# shop\n" });
  const head = gl.commit(project, { "README.md": "# shop\n", "app.py": "RETRIES = 3\n" });
  const mr = gl.openMr(project, { iid: 1, title: "Retries", sourceBranch: "retries", baseSha: base, headSha: head });
  const d = gl.delivery("Merge Request Hook", gl.mergeRequestPayload(project, mr, "open"));
  const res = await page.request.post("/api/forges/gitlab/webhook", { headers: d.headers, data: d.body });
  expect(res.status()).toBe(202);
  const mode = page.getByLabel(`Review mode of ${path}`);
  await expect(async () => {
    await page.reload();
    await expect(mode).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(mode).toHaveValue("auto");
  await mode.selectOption("on_request");
  await expect(page.getByText(`${path}: saved.`)).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(`Review mode of ${path}`)).toHaveValue("on_request");

  // Disconnect asks first; Cancel keeps it, Disconnect removes it.
  const connection = page.getByTestId("gitlab-connection");
  await connection.getByRole("button", { name: "Disconnect" }).click();
  const confirm = page.getByRole("dialog", { name: `Disconnect ${path}?` });
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(connection).toBeVisible();
  await connection.getByRole("button", { name: "Disconnect" }).click();
  await confirm.getByRole("button", { name: "Disconnect" }).click();
  await expect(page.getByText(`${path} disconnected.`)).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("gitlab-connection")).toHaveCount(0);
  await expect(page.getByTestId("gitlab-empty")).toBeVisible();
  expect(gl.rejected).toEqual([]);
});
