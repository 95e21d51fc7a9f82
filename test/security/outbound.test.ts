/**
 * The outbound policy at the server's edges (issue: holes 2 and 6). A workspace owner's provider
 * base URL on loopback in any spelling is refused with one message that names what the operator
 * sets; a redirect from an allowed host to an internal one is not followed (Test connection, a web
 * run's web search and reranker); and a web run with a blank api_key never sends the server's own
 * key from its environment to the host a member chose. Every spelling of the policy itself is unit
 * tested in server/net/outbound.test.ts.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig, openMigratedDb } from "../helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import type { Db } from "../../server/db/client.ts";
import { createEventBus } from "../../server/events/bus.ts";
import { createOutboundPolicy } from "../../server/net/outbound.ts";
import { tempDir } from "../../server/pipelines/engine/test-support.ts";
import { createRunService } from "../../server/pipelines/runs.ts";

/** A recording HTTP server: every request's path and headers; `/to?u=` redirects (307) to `u`. */
async function recorder() {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    const to = new URL(req.url ?? "/", "http://x").searchParams.get("u");
    if (to) {
      res.writeHead(307, { location: to + (req.url?.replace(/^\/[^?]*\?u=[^&]*/, "") ?? "") });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ results: [], choices: [{ message: { role: "assistant", content: "hi" } }] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return { seen, port, url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

let target: Awaited<ReturnType<typeof recorder>>;
let hop: Awaited<ReturnType<typeof recorder>>;
beforeAll(async () => {
  target = await recorder(); // internal and NOT allowed: nothing may reach it
  hop = await recorder(); // allowed by host:port, redirects to the target
});
afterAll(async () => {
  await target?.close();
  await hop?.close();
});

describe("provider connections (the web app)", () => {
  let server: TestServer;
  let owner: TestUser;
  beforeAll(async () => {
    server = await startTestServer(
      await createTestConfig({ PIPELINES_ALLOWED_HOSTS: "", OUTBOUND_ALLOWED_HOSTS: `127.0.0.1:${hop.port}` }),
    );
    owner = await signUp(server.url, { name: "Owner" });
  });
  afterAll(async () => server?.stop());

  const save = (baseUrl: string) =>
    owner.client.mutate<{ uid: string }>("providers.save", {
      workspaceId: owner.workspaceId,
      uid: randomUUID(),
      name: `c-${randomUUID().slice(0, 8)}`,
      provider: "openai-compatible",
      baseUrl,
      model: "m",
    });

  it.each([
    (p: number) => `http://localhost:${p}/v1`,
    (p: number) => `http://localhost.:${p}/v1`,
    (p: number) => `http://127.0.0.1:${p}/v1`,
    (p: number) => `http://127.9.9.9:${p}/v1`,
    (p: number) => `http://[::1]:${p}/v1`,
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/v1`,
    (p: number) => `http://2130706433:${p}/v1`,
    (p: number) => `http://0x7f000001:${p}/v1`,
    () => "http://localhost:11434/v1", // the default Ollama address, which the operator did not set
    () => "http://169.254.169.254/latest",
  ])("refuses a base URL on an internal address (%#), saying what to set", async (url) => {
    const before = target.seen.length;
    const r = await save(url(target.port));
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.data ?? r.error)).toMatch(/is refused: .*OUTBOUND_ALLOWED_HOSTS/);
    expect(target.seen.length).toBe(before);
  });

  it("Test connection does not follow a redirect from an allowed host to an internal one", async () => {
    const r = await save(`${hop.url}/to?u=${encodeURIComponent(`${target.url}/v1`)}`);
    expect(r.status).toBe(200);
    const test = await owner.client.ok<{ ok: boolean; error?: string }>("mutation", "providers.test", {
      uid: r.data.uid,
    });
    expect(test.ok).toBe(false);
    expect(test.error).toMatch(/is refused/);
    expect(target.seen).toHaveLength(0);
  });
});

describe("web-app pipeline runs", () => {
  const log = pino({ level: "silent" });
  let db: Db;
  let close: () => Promise<void>;
  let workspaceId: string;
  let member: { userId: string; name: string; email: string };
  const SERVER_KEY = `sk-server-${randomUUID()}`;
  const saved: Record<string, string | undefined> = {};
  const ENV_KEYS = ["LLM_API_KEY", "RERANKER_API_KEY", "TAVILY_API_KEY", "RETRIEVER_API_KEY"];

  beforeAll(async () => {
    ({ db, close } = await openMigratedDb());
    workspaceId = (await db.workspace.create({ data: { name: "w" } })).id;
    const id = randomUUID();
    member = { userId: id, name: "m", email: `${id}@example.com` };
    await db.user.create({ data: { id, name: "m", email: member.email } });
    await db.membership.create({ data: { workspaceId, userId: id, role: "member" } });
    // The server's own keys, as an operator would set them for command-line runs.
    for (const k of ENV_KEYS) {
      saved[k] = process.env[k];
      process.env[k] = SERVER_KEY;
    }
  });
  afterAll(async () => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await close?.();
  });

  const runService = () =>
    createRunService({
      db,
      events: createEventBus({ db, log }),
      log,
      outbound: createOutboundPolicy({ allow: [`127.0.0.1:${hop.port}`] }),
    });

  const WEB = { top_k: 2, retrieve_thread_num: 1, websearch_backend: "tavily" };
  const BENCHMARK = { benchmark: { path: "data/q.jsonl", key_map: { q_ls: "question", gt_ls: "answers" } } };

  async function appRun(steps: string, servers: string[], params: Record<string, unknown>) {
    const yaml = [
      "servers:",
      "  benchmark: servers/benchmark",
      ...servers.map((s) => `  ${s}: servers/${s}`),
      "pipeline:",
      "- benchmark.get_data",
      steps,
    ].join("\n");
    const dir = tempDir({
      "p.yaml": yaml,
      "parameter/p_parameter.yaml": JSON.stringify({ benchmark: BENCHMARK, ...params }),
      "data/q.jsonl": '{"question": "What mainly causes the tides?", "answers": ["the Moon"]}\n',
    });
    try {
      return await runService().run({ file: "p.yaml", cwd: dir.dir, origin: "app", actor: member, workspaceId });
    } finally {
      dir.cleanup();
    }
  }

  it("a blank api_key is never filled from the server's environment (generation; reranker set-up)", async () => {
    hop.seen.length = 0;
    const gen = await appRun(
      "- generation.generation_init\n- generation.generate:\n    input:\n      prompt_ls: q_ls\n",
      ["generation"],
      {
        generation: {
          backend: "openai",
          backend_configs: { openai: { model_name: "m", base_url: `${hop.url}/v1`, api_key: "" } },
          sampling_params: {},
          extra_params: {},
          system_prompt: "",
        },
      },
    );
    expect(gen.error ?? "").not.toContain(SERVER_KEY);
    // The model request did go out — to the member's host, without the server's key.
    expect(hop.seen.some((r) => r.url.startsWith("/v1/chat/completions"))).toBe(true);
    for (const r of hop.seen) expect(JSON.stringify(r.headers)).not.toContain(SERVER_KEY);
  });

  it("web search: no server key is lent (the run says to set one), and a redirect to an internal host is refused", async () => {
    const search = "- retriever.retriever_websearch\n";
    const noKey = await appRun(search, ["retriever"], {
      retriever: { ...WEB, websearch_backend_configs: { tavily: { base_url: hop.url } } },
    });
    expect(noKey.status).toBe("failed");
    expect(noKey.error).toContain("tavily needs an API key");
    expect(noKey.error).not.toContain(SERVER_KEY);

    const before = target.seen.length;
    const redirected = await appRun(search, ["retriever"], {
      retriever: {
        ...WEB,
        websearch_backend_configs: {
          tavily: {
            api_key: "member-key",
            base_url: `${hop.url}/to?u=${encodeURIComponent(`${target.url}/search`)}`,
            retries: 1,
          },
        },
      },
    });
    expect(redirected.status).toBe("failed");
    expect(redirected.error).toMatch(/is refused/);
    expect(target.seen.length).toBe(before);
  });
});
