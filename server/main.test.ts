/** Restarting Argus on the same database (what every deploy does). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig, type TestConfig } from "../test/helpers/db.ts";
import { Client, signUp, type TestUser } from "../test/helpers/server.ts";
import { startServer, type RunningServer } from "./main.ts";
import { builtinUid, loadBuiltinPrompts } from "./prompts/builtins.ts";

let db: TestConfig;
const running = new Set<RunningServer>();

async function start(): Promise<RunningServer> {
  const server = await startServer({ config: db.config, ui: false });
  running.add(server);
  return server;
}
async function stop(server: RunningServer) {
  running.delete(server);
  await server.close();
}

beforeAll(async () => {
  db = await createTestConfig();
});
afterAll(async () => {
  for (const s of running) await s.close().catch(() => undefined);
  await db?.cleanup();
});

interface PromptRow {
  uid: string;
  name: string;
  isBuiltin: boolean;
  isDefault: boolean;
  version: number;
}

describe("restart", () => {
  let owner: TestUser;
  let mine: PromptRow;
  const builtins = loadBuiltinPrompts();

  const prompts = (client: Client) =>
    client.ok<PromptRow[]>("query", "prompts.list", { workspaceId: owner.workspaceId });
  const expectOneOfEach = async (server: RunningServer) => {
    const rows = await server.services.db.prompt.groupBy({
      by: ["builtinKey"],
      where: { isBuiltin: true },
      _count: { _all: true },
    });
    expect(rows.map((r) => [r.builtinKey, r._count._all]).sort()).toEqual(builtins.map((b) => [b.key, 1]).sort());
    expect(await server.services.db.prompt.count({ where: { isDefault: true } })).toBe(1);
  };

  it("first start: set up, make a prompt the default, stop", async () => {
    const server = await start();
    owner = await signUp(server.url, { name: "Rita Restart" });
    mine = await owner.client.ok<PromptRow>("mutate", "prompts.create", {
      workspaceId: owner.workspaceId,
      uid: crypto.randomUUID(),
      name: "House style",
      content: "Our rules.",
      isDefault: true,
    });
    await expectOneOfEach(server);
    await stop(server);
  });

  it("two restarts in a row: still exactly one copy of each built-in; the user's default survives", async () => {
    for (let i = 0; i < 2; i++) {
      const server = await start();
      await expectOneOfEach(server);
      // The session cookie from before the restart still works (the generated auth secret persists in DATA_DIR).
      const client = new Client(server.url, owner.client.cookie);
      const list = await prompts(client);
      expect(list.filter((p) => p.isBuiltin)).toHaveLength(builtins.length);
      expect(list.filter((p) => p.isDefault).map((p) => p.uid)).toEqual([mine.uid]);
      expect(list.find((p) => p.uid === builtinUid(owner.workspaceId, "general-review"))).toMatchObject({
        version: 1,
        isDefault: false,
      });
      expect(await (await fetch(`${server.url}/api/health`)).json()).toMatchObject({ status: "ok", db: "ok" });
      await stop(server);
    }
  });

  it("two instances starting together on one database: still one copy of each", async () => {
    const [a, b] = await Promise.all([start(), start()]);
    await expectOneOfEach(a);
    expect(await new Client(b.url, owner.client.cookie).query("account.me")).toMatchObject({ status: 200 });
    await Promise.all([stop(a), stop(b)]);
  });

  it("after stop, the port no longer answers", async () => {
    const server = await start();
    const { url } = server;
    await stop(server);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });

  it("refuses to start, naming the migration, when an applied migration was edited", async () => {
    const other = await createTestConfig();
    try {
      const server = await startServer({ config: other.config, ui: false });
      await server.services.db.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET checksum = 'edited'`);
      await server.close();
      await expect(startServer({ config: other.config, ui: false })).rejects.toThrow(
        /20261129000000_init was changed after it was applied/,
      );
    } finally {
      await other.cleanup();
    }
  });
});
