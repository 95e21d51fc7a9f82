/**
 * What the API layer costs on top of the database: prompts.list over HTTP (session lookup via
 * better-auth, role check, tRPC, JSON) against the same Prisma query called directly (baseline),
 * on the embedded SQLite default, with the workspace's built-in prompts plus 200 more.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../server/config.ts";
import { startServer } from "../server/main.ts";
import { summarize, time } from "./_stats.ts";

export default async function apiOverhead() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "argus-bench-"));
  const setupToken = "bench-setup-token-0123456789";
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    SETUP_TOKEN: setupToken,
  });
  const server = await startServer({ config, ui: false });
  try {
    const res = await fetch(`${server.url}/api/trpc/account.signUp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench", email: "bench@example.com", password: "bench-password", setupToken }),
    });
    const { result } = (await res.json()) as { result: { data: { workspaceId: string } } };
    const workspaceId = result.data.workspaceId;
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    await server.services.db.prompt.createMany({
      data: Array.from({ length: 200 }, (_, i) => ({
        uid: crypto.randomUUID(),
        workspaceId,
        name: `Prompt ${i}`,
        content: "x".repeat(2000),
      })),
    });
    const url = `${server.url}/api/trpc/prompts.list?input=${encodeURIComponent(JSON.stringify({ workspaceId }))}`;
    const viaApi = () => fetch(url, { headers: { cookie } }).then((r) => r.json());
    const direct = () =>
      server.services.db.prompt.findMany({
        where: { workspaceId },
        orderBy: [{ isDefault: "desc" }, { isBuiltin: "asc" }, { name: "asc" }],
      });
    await time(30, viaApi); // warm-up
    await time(30, direct);
    const api = summarize(await time(300, viaApi));
    const baseline = summarize(await time(300, direct));
    return {
      rows: 203,
      unit: "ms",
      "prompts.list over HTTP (tRPC + session + role check)": api,
      "baseline: the same Prisma query in-process": baseline,
      overheadP50Ms: Math.round((api.p50 - baseline.p50) * 1000) / 1000,
    };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
