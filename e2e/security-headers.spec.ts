import { expect, test, type Page } from "@playwright/test";
import { OWNER, signUpOrSignIn } from "./support/owner.ts";

// The Content Security Policy in a real browser: pages carry a fresh nonce that Next.js puts on its
// scripts, the app works under the policy (no violation on any page visited), an injected inline
// script is blocked, and ?next= cannot send a signed-in user off-site.
test.describe.configure({ mode: "serial" });

/** Collects CSP violations (the DOM event and Chromium's console report) from the moment it is called. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) violations.push(`console: ${msg.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __csp: string[] }).__csp ??= [];
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return violations;
}

async function domViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
}

test("pages carry the headers, a fresh nonce on every script, and load with no CSP violation", async ({ page }) => {
  const violations = await watchViolations(page);
  const first = await page.goto("/sign-in");
  const headers = first!.headers();
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-frame-options"]).toBe("DENY");
  const csp = headers["content-security-policy"]!;
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;

  // Every script in the document is Next's (or next-themes') and carries this response's nonce.
  const scripts = await page.evaluate(() => [...document.scripts].map((s) => s.nonce));
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.every((n) => n === nonce)).toBe(true);

  // Hydrated (React runs): the form reacts to typing.
  await page.getByLabel("Email").fill("someone@example.com");
  await expect(page.getByLabel("Email")).toHaveValue("someone@example.com");

  const again = await page.goto("/sign-in");
  expect(/'nonce-([^']+)'/.exec(again!.headers()["content-security-policy"]!)![1]).not.toBe(nonce);

  // Signed in, through a few of the app's pages (tRPC, the sidebar, the theme script).
  await signUpOrSignIn(page);
  for (const path of ["/projects", "/reviews", "/knowledge", "/settings"]) {
    await page.goto(path);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    // Late violations (lazy chunks, the toast stylesheet) would show within this.
    await page.waitForTimeout(300);
    expect(await domViolations(page), path).toEqual([]);
  }
  expect(violations).toEqual([]);
});

test("injected markup cannot run script", async ({ page }) => {
  await watchViolations(page);
  await page.goto("/sign-in");
  // What an HTML-injection bug would smuggle in: an inline event handler, and a parser-inserted
  // inline script (document.write). Neither carries the nonce. (A script element created by running
  // code is not a test of the policy: 'strict-dynamic' trusts scripts that trusted code creates.)
  const ran = await page.evaluate(async () => {
    const w = window as unknown as { __handler?: boolean; __written?: boolean };
    const box = document.createElement("div");
    box.innerHTML = `<img src="/favicon.svg?x" onload="window.__handler = true" onerror="window.__handler = true">`;
    document.body.appendChild(box);
    const frame = document.createElement("iframe");
    document.body.appendChild(frame);
    frame.contentDocument!.write("<script>parent.__written = true</script>");
    frame.contentDocument!.close();
    await new Promise((r) => setTimeout(r, 300));
    return { handler: w.__handler === true, written: w.__written === true };
  });
  expect(ran).toEqual({ handler: false, written: false });
  const violations = await domViolations(page);
  expect(violations.some((v) => v.startsWith("script-src"))).toBe(true);
});

test("?next= after sign-in stays on this site", async ({ page, baseURL }) => {
  // The owner exists (first test); "/\evil.example" is what a browser would read as //evil.example.
  await page.goto("/sign-in?next=/%5Cevil.example");
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Welcome, Ada" })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
});
