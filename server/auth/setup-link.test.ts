/**
 * The setup link end to end: a server started without SETUP_TOKEN prints a one-time link to its log;
 * only that link creates the owner; a restart before it is used prints a new one (the old one dies);
 * once the owner exists, no start prints a link and no token sets Argus up again.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig, type TestConfig } from "../../test/helpers/db.ts";
import { Client, PASSWORD, signUp, uniqueEmail } from "../../test/helpers/server.ts";
import { loadConfig } from "../config.ts";
import { startServer, type RunningServer } from "../main.ts";

let db: TestConfig;
const running = new Set<RunningServer>();

/** Starts the real server (no SETUP_TOKEN) and returns it with the lines it logged. */
async function start(): Promise<{ server: RunningServer; lines: string[] }> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const config = loadConfig({ ...db.env, SETUP_TOKEN: "", LOG_LEVEL: "info" });
  const server = await startServer({ config, ui: false, log: pino({ level: "info" }, sink) });
  running.add(server);
  return { server, lines };
}

async function stop(server: RunningServer) {
  running.delete(server);
  await server.close();
}

/** The setup link in the log, if any. */
function setupLink(lines: string[]): URL | undefined {
  const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
  const hit = msgs.map((m) => /(https?:\/\/\S+\/sign-up\?setup=\S+)$/.exec(m)?.[1]).find(Boolean);
  return hit ? new URL(hit) : undefined;
}

const signUpWith = (server: RunningServer, setupToken: string) =>
  new Client(server.url).mutate<{ role: string }>("account.signUp", {
    name: "Olga Owner",
    email: uniqueEmail("olga"),
    password: PASSWORD,
    setupToken,
  });

beforeAll(async () => {
  db = await createTestConfig();
});
afterAll(async () => {
  for (const s of running) await s.close().catch(() => undefined);
  await db?.cleanup();
});

describe("the setup link in the server log", () => {
  let staleToken: string;

  it("a fresh install prints a link to this server's sign-up page with a random token", async () => {
    const { server, lines } = await start();
    const link = setupLink(lines);
    expect(link, lines.join("\n")).toBeDefined();
    expect(link!.origin).toBe(server.url);
    expect(link!.pathname).toBe("/sign-up");
    staleToken = link!.searchParams.get("setup")!;
    expect(staleToken).toMatch(/^[\w-]{32}$/);
    await stop(server);
  });

  it("a restart before the link is used prints a new link; the old one no longer works", async () => {
    const { server, lines } = await start();
    const token = setupLink(lines)!.searchParams.get("setup")!;
    expect(token).not.toBe(staleToken);
    const stale = await signUpWith(server, staleToken);
    expect(stale.status).toBe(403);
    expect(stale.error?.message).toMatch(/Open the setup link printed in the server log/);

    const r = await signUpWith(server, token);
    expect(r.status).toBe(200);
    expect(r.data.role).toBe("owner");
    // Used: the same link makes nobody else an owner.
    const again = await signUpWith(server, token);
    expect(again.status).toBe(403);
    expect(again.error?.message).toMatch(/already set up/);
    await stop(server);
  });

  it("once the owner exists, a start prints no setup link", async () => {
    const { server, lines } = await start();
    expect(setupLink(lines)).toBeUndefined();
    expect(lines.join("\n")).not.toMatch(/setup=/);
    // And the test helpers' preset token is no way in either.
    await expect(signUp(server.url, { name: "Late" })).rejects.toThrow(/403/);
    await stop(server);
  });
});
