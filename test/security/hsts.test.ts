/** HSTS (issue: hole 5): on every response when users reach Argus over https, never over plain http. */
import { afterAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../helpers/db.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function headersOf(env: Record<string, string>): Promise<(string | null)[]> {
  const server = await startTestServer(await createTestConfig(env));
  servers.push(server);
  const responses = await Promise.all([
    fetch(`${server.url}/api/health`),
    fetch(`${server.url}/api/trpc/account.me`),
    fetch(`${server.url}/api/trpc/nope.nothing`),
  ]);
  return responses.map((r) => r.headers.get("strict-transport-security"));
}

describe("Strict-Transport-Security", () => {
  it("every response carries it (≥ 180 days, no preload) behind an https PUBLIC_URL", async () => {
    for (const value of await headersOf({ PUBLIC_URL: "https://argus.example.com" })) {
      expect(value).toMatch(/^max-age=\d+/);
      expect(Number(/max-age=(\d+)/.exec(value!)![1])).toBeGreaterThanOrEqual(180 * 24 * 3600);
      expect(value).not.toContain("preload");
    }
  });

  it("is absent over plain http (it would lock browsers out of a server that has no TLS)", async () => {
    expect(await headersOf({ PUBLIC_URL: "http://argus.internal:3000" })).toEqual([null, null, null]);
    expect(await headersOf({})).toEqual([null, null, null]);
  });
});
