import { expect, test, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { signUpOrSignIn } from "./support/owner.ts";
import { inOwnWorkspace } from "./support/own-workspace.ts";
import { inviteTeammate, reportAnswer, startScriptedReview, trpc, workspaceOf } from "./support/scripted-review.ts";

// Issue 28, point 9: the forms a new team meets first. The pipeline parameter form shows what the
// steps read, grouped by server, in plain words, with other backends' settings folded under
// "Advanced"; the chunking form's labels fit their column; the inbox renders a quoted message's
// Markdown instead of its asterisks and backticks.
test.describe.configure({ mode: "serial" });
test.use({ viewport: { width: 1280, height: 900 } });

/** Whether two boxes overlap (touching edges do not count). */
const overlaps = (
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
) => a.x < b.x + b.width - 1 && b.x < a.x + a.width - 1 && a.y < b.y + b.height - 1 && b.y < a.y + a.height - 1;

async function boxes(locator: Locator) {
  const out = [];
  for (const l of await locator.all()) out.push((await l.boundingBox())!);
  return out;
}

/** No label spills out of its box, and no two labels overlap. */
async function expectLabelsFit(page: Page, within: Locator) {
  const labels = within.locator("label");
  const spills = await labels.evaluateAll((els) =>
    els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent),
  );
  expect(spills).toEqual([]);
  const b = await boxes(labels);
  for (let i = 0; i < b.length; i++)
    for (let j = i + 1; j < b.length; j++) expect(overlaps(b[i]!, b[j]!), `labels ${i} and ${j} overlap`).toBe(false);
}

// The fork and the knowledge base live in a workspace of their own (other specs count empty states).
test.describe("in a workspace of its own", () => {
  inOwnWorkspace("Forms");

  test("the parameter form shows what the steps read, by server, in plain words; other backends under Advanced", async ({
    page,
  }) => {
    await signUpOrSignIn(page);
    await page.goto("/pipelines/gallery/vanilla_rag");
    await page.getByRole("button", { name: "Fork to edit" }).click();
    const fork = page.getByRole("dialog", { name: "Fork pipeline" });
    await fork.getByLabel("Name").fill(`params_${Date.now()}`);
    await fork.getByRole("button", { name: "Fork" }).click();
    await expect(page).toHaveURL(/\/pipelines\/[0-9a-f-]{36}$/);
    await page.getByRole("tab", { name: "Parameters" }).click();

    // One group per server, open, named with its server.
    const generation = page.getByRole("region", { name: "generation parameters" });
    await expect(generation.getByRole("heading")).toHaveText(/generation\s*servers\/generation/);
    const retriever = page.getByRole("region", { name: "retriever parameters" });
    await expect(retriever).toBeVisible();

    // Plain labels with the YAML name and help beside them.
    const baseUrl = generation.getByRole("textbox", { name: "OpenAI-compatible API · Base URL" });
    await expect(baseUrl).toBeVisible();
    await expect(baseUrl).toHaveAccessibleDescription(/backend_configs\.openai\.base_url · string.*address/);
    await expect(generation.getByRole("textbox", { name: "Sampling · Temperature" })).toBeVisible();
    await expect(retriever.getByRole("textbox", { name: "Results per question" })).toHaveValue("3");

    // The vLLM and Hugging Face blocks are not used (backend is openai): folded under Advanced.
    const vllmModel = generation.getByRole("textbox", { name: "vLLM server · Model" });
    await expect(vllmModel).toBeHidden();
    const advanced = generation.locator("details").filter({ has: page.locator("summary", { hasText: /^Advanced/ }) });
    await advanced.locator("summary").click();
    await expect(vllmModel).toBeVisible();
    await expect(advanced).toContainText("Settings of backends this server does not use now.");
    // Milvus is not the index in use either.
    await expect(retriever.getByRole("textbox", { name: "Milvus · Uri" })).toBeHidden();

    // The backend is a choice of the blocks offered; picking vLLM brings its settings up front.
    const backend = generation.getByRole("combobox", { name: "Backend", exact: true });
    await expect(backend).toHaveValue("openai");
    await backend.selectOption("vllm");
    // (Advanced is still open: the OpenAI settings are in it now, the vLLM ones are not.)
    await expect(generation.getByRole("textbox", { name: "vLLM server · Model" })).toBeVisible();
    await expect(advanced.getByRole("textbox", { name: "vLLM server · Model" })).toHaveCount(0);
    await expect(advanced.getByRole("textbox", { name: "OpenAI-compatible API · Base URL" })).toBeVisible();
    await page.getByText(/Parameter file \(parameter\/.+_parameter\.yaml\)/).click();
    await expect(page.getByLabel("Parameter file")).toContainText("backend: vllm");
    await expectLabelsFit(page, generation);
  });

  test("the chunking form's labels fit its column on desktop and phone", async ({ page }) => {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const { uid } = await trpc<{ uid: string }>(page.request, "knowledge.create", {
      workspaceId,
      name: `Chunks ${Date.now()}`,
    });
    await page.goto(`/knowledge/${uid}`);
    const form = page.getByRole("form", { name: "Chunking settings" });
    await expect(form.getByRole("combobox", { name: /Chunking method/ })).toHaveValue("sentence");
    await expect(form.getByRole("textbox", { name: /Passage size/ })).toBeVisible();
    await expectLabelsFit(page, form);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(form.getByRole("textbox", { name: /Passage size/ })).toBeVisible();
    await expectLabelsFit(page, form);
  });
});

test("the inbox renders a quoted message's Markdown", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const llm = await startScriptedServer({ script: [{ text: reportAnswer() }] });
  let member: BrowserContext | undefined;
  try {
    await signUpOrSignIn(page);
    const workspaceId = await workspaceOf(page);
    const teammate = await inviteTeammate(page, browser, workspaceId, "Mona Markdown");
    member = teammate.context;
    const { reviewUid } = await startScriptedReview(page, llm, workspaceId);
    await page.goto(`/reviews/${reviewUid}`);
    const composer = page.getByRole("textbox", { name: "Message" });
    await composer.click();
    await composer.pressSequentially("This is **urgent** @Mon");
    const option = page
      .getByRole("listbox", { name: "Mention a member" })
      .getByRole("option", { name: /Mona Markdown/ });
    await expect(option).toHaveAttribute("aria-selected", "true");
    await composer.press("Enter");
    await composer.pressSequentially("see `src/api.py`");
    await composer.press("Enter");

    const mona = teammate.page;
    await mona.goto("/inbox");
    const item = mona.getByRole("list", { name: "Notifications" }).getByRole("link").first();
    await expect(item).toContainText("This is urgent @Mona Markdown see src/api.py", { timeout: 15_000 });
    await expect(item).not.toContainText("**");
    await expect(item).not.toContainText("`");
    await expect(item.locator("strong")).toHaveText("urgent");
    await expect(item.locator("code")).toHaveText("src/api.py");
  } finally {
    await member?.close();
    await llm.close();
  }
});
