/** The forge variables: a GitHub App is all three of its variables or none; URLs are checked. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.ts";

const KEY = "-----BEGIN RSA PRIVATE KEY-----\\nMIIB\\n-----END RSA PRIVATE KEY-----";
const base = { DATA_DIR: "/tmp/argus-forge-settings", NODE_ENV: "test" };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("forge settings", () => {
  it("reads a GitHub App (a one-line PEM's \\n become newlines) and GitHub Enterprise's API URL", () => {
    const config = loadConfig({
      ...base,
      GITHUB_APP_ID: "123",
      GITHUB_APP_PRIVATE_KEY: KEY,
      GITHUB_WEBHOOK_SECRET: "a-long-enough-secret",
      GITHUB_API_URL: "https://ghes.example.com/api/v3/",
      GITLAB_URL: "https://gitlab.example.com",
    });
    expect(config.forges.githubApp).toEqual({
      appId: 123,
      privateKey: "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
      webhookSecret: "a-long-enough-secret",
    });
    expect(config.forges.githubApiUrl).toBe("https://ghes.example.com/api/v3");
    expect(config.forges.gitlabUrl).toBe("https://gitlab.example.com");
  });

  it("defaults to github.com and gitlab.com, with no App", () => {
    const config = loadConfig(base);
    expect(config.forges).toEqual({
      githubApp: undefined,
      githubApiUrl: "https://api.github.com",
      gitlabUrl: "https://gitlab.com",
    });
  });

  it("names what is missing when the App is half configured, and refuses a key that is not PEM", () => {
    expect(problems({ GITHUB_APP_ID: "123" })[0]).toMatch(/all three .* got only GITHUB_APP_ID/);
    const bad = problems({ GITHUB_APP_PRIVATE_KEY: "not a key", GITHUB_WEBHOOK_SECRET: "short-one" });
    expect(bad[0]).toMatch(/^GITHUB_APP_PRIVATE_KEY: expected .*PEM.*\(value not shown\)$/);
    expect(bad[1]).toMatch(/^GITHUB_WEBHOOK_SECRET: expected .*16 characters \(value not shown\)$/);
    expect(bad.join("\n")).not.toMatch(/not a key|short-one/);
    expect(problems({ GITHUB_API_URL: "ftp://x" })[0]).toMatch(/^GITHUB_API_URL: expected an http\(s\) URL/);
  });
});
