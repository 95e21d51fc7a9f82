/** `argus start --role`: what a configuration can run, refused before anything starts, with the reason. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { startServer } from "./main.ts";
import { roleRefusal } from "./process-role.ts";

const pg = "postgres://argus@db.internal:5432/argus";

describe("roles", () => {
  it("all runs anywhere; web and worker need REDIS_URL and PostgreSQL", () => {
    expect(roleRefusal("all", loadConfig({}))).toBeNull();
    expect(roleRefusal("worker", loadConfig({ DATABASE_URL: pg }))).toMatch(/^--role worker needs REDIS_URL: /);
    expect(roleRefusal("web", loadConfig({ REDIS_URL: "redis://cache:6379" }))).toMatch(
      /^--role web needs PostgreSQL \(DATABASE_URL=postgres:\/\/…\)/,
    );
    expect(roleRefusal("web", loadConfig({ REDIS_URL: "redis://cache:6379", DATABASE_URL: pg }))).toBeNull();
  });

  it("startServer refuses a role its configuration cannot run, before it opens anything", async () => {
    await expect(
      startServer({ config: loadConfig({ DATA_DIR: "/nonexistent/argus" }), role: "worker" }),
    ).rejects.toThrow(/needs REDIS_URL/);
  });

  it("the command line: an unknown role is a usage error (exit 2), a refused one says why (exit 1)", () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ["--import", "tsx", "server/cli/index.ts", "start", ...args], {
        env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", ...env },
        encoding: "utf8",
        timeout: 60_000,
      });
    const bogus = run(["--role", "boss"]);
    expect(bogus.status).toBe(2);
    expect(bogus.stderr).toContain('--role must be one of all, web, worker; got "boss".');
    const refused = run(["--role", "worker"], { DATABASE_URL: pg });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("argus: --role worker needs REDIS_URL");
  }, 120_000);
});
