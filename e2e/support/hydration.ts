import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the page's server-rendered HTML (its handlers are on `main`). A
 * page's content is in its HTML before its scripts run (issue 28), so a button can be visible while
 * a click on it would still do nothing; a person waits the moment it takes, a test has to say so.
 */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const main = document.querySelector("main");
    return !!main && Object.keys(main).some((k) => k.startsWith("__reactProps"));
  });
}
