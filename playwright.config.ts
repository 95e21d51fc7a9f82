import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SETUP_TOKEN } from "./e2e/support/owner.ts";

// e2e runs the real server (built UI, SQLite in a fresh data directory) and Debian's Chromium.
// E2E_PORT lets two checkouts run their e2e suites side by side.
const port = Number(process.env.E2E_PORT ?? 3210);
const baseURL = `http://localhost:${port}`;
const dataDir = mkdtempSync(path.join(tmpdir(), "argus-e2e-"));

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  // The foundation spec walks through the first visit (the setup link creates the owner), so it runs
  // before every other spec, whatever their file names.
  projects: [
    { name: "foundation", testMatch: /foundation\.spec\.ts$/ },
    { name: "app", testIgnore: /foundation\.spec\.ts$/, dependencies: ["foundation"] },
  ],
  webServer: {
    command: "node --import tsx server/cli/index.ts start",
    url: `${baseURL}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    // SETUP_TOKEN: the owner is created through the setup link, preset as an automated install would.
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
      DATABASE_URL: "",
      SETUP_TOKEN,
      PIPELINES_ALLOWED_HOSTS: "127.0.0.1,localhost",
      // e2e/integrations.spec.ts runs a GitHub stand-in there (a workspace's own App talks to it).
      GITHUB_API_URL: `http://127.0.0.1:${port + 7}`,
      // …and a GitLab stand-in there (the GitLab connections of Settings → Integrations talk to it).
      GITLAB_URL: `http://127.0.0.1:${port + 8}`,
    },
  },
});
