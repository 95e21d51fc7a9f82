/**
 * A model provider misbehaving, through the scripted wire server and the real SDKs, during a whole
 * agent review run by the web app's job: request timeouts, a stream that goes silent, 429 storms
 * with retry-after, 500s, malformed SSE (a proxy corrupts the scripted stream), a stream cut inside
 * a tool call, and broken tool-call JSON. Each review ends cleanly — completed after retries, or
 * failed with a reason — within a bounded time, with a gap-free room log that ends in its status.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoomEvent } from "../../server/events/bus.ts";
import type { RuleInput } from "../../server/llm/scripted/script.ts";
import { startScriptedServer, type ScriptedServer } from "../../server/llm/scripted/server.ts";
import { modelFinding, reportText } from "../../server/review/reviewer/test-support.ts";
import { createTestConfig } from "../helpers/db.ts";
import { signUp, startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { expectMessage } from "./support/expect.ts";
import { importProject, newProject } from "./support/world.ts";

let server: TestServer;
let llm: ScriptedServer;
let proxy: http.Server;
let proxyUrl: string;
let owner: TestUser;
let projectUid: string;

const APP = [
  "export function findUser(db: { query(sql: string): unknown }, id: string) {",
  `  return db.query("SELECT * FROM users WHERE id = '" + id + "'");`,
  "}",
  "",
].join("\n");
const REPORT = reportText([
  modelFinding({
    title: "SQL injection in findUser",
    file: "src/app.ts",
    start_line: 2,
    evidence: `return db.query("SELECT * FROM users WHERE id = '" + id + "'");`,
  }),
]);
/** A well-behaved model: a report at once, a confirmation for the verification, the critique kept. */
const HEALTHY: RuleInput[] = [
  { match: "Verify this finding", text: 'VERDICT: {"verdict": "confirmed", "evidence": "src/app.ts:2"}' },
  { match: "review it critically", text: REPORT },
  { text: REPORT },
];

/** Longest a single review may take here; past it the review hung. */
const REVIEW_DEADLINE_MS = 45_000;

beforeAll(async () => {
  llm = await startScriptedServer({ script: HEALTHY });
  proxy = http.createServer((req, res) => void corruptingProxy(req, res));
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  // Short timeouts and few retries, as an operator might set them; the defaults would only be slower.
  server = await startTestServer(
    await createTestConfig({ LLM_REQUEST_TIMEOUT_MS: "1000", LLM_IDLE_TIMEOUT_MS: "1000", LLM_MAX_RETRIES: "2" }),
  );
  owner = await signUp(server.url, { name: "Owner" });
  projectUid = await newProject(owner, owner.workspaceId, "Shop");
  // Two top-level entries, so the zip's "src/" folder is kept (a single top folder is stripped).
  await importProject(server, owner, projectUid, { "src/app.ts": APP, "README.md": "# Shop\n" });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => proxy?.close(resolve));
  await llm?.close();
});

/**
 * Forwards to the scripted server; in a stream, the second SSE frame's JSON is cut in half and
 * closed with garbage, as a broken proxy or a provider bug would deliver it.
 */
async function corruptingProxy(req: http.IncomingMessage, res: http.ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const upstream = await fetch(`${llm.url}${req.url}`, {
    method: req.method,
    headers: Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k !== "host" && k !== "content-length"),
    ) as Record<string, string>,
    body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
  });
  const text = await upstream.text();
  const frames = text.split("\n\n");
  if (frames.length > 2) frames[1] = `${frames[1]!.slice(0, Math.floor(frames[1]!.length / 2))}\u0000}}{{not json`;
  res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
  res.end(frames.join("\n\n"));
}

async function connection(baseUrl: string): Promise<string> {
  const uid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: owner.workspaceId,
    uid,
    name: `model ${uid.slice(0, 8)}`,
    provider: "anthropic",
    baseUrl,
    model: "claude-sonnet-5-5",
    apiKey: "sk-test",
  });
  return uid;
}

interface Ended {
  uid: string;
  status: string;
  statusReason: string | null;
  findingsCount: number;
  events: RoomEvent[];
  ms: number;
}

/** Starts an agent review with the given script and waits (bounded) for it to end. */
async function review(script: RuleInput[], baseUrl = llm.url): Promise<Ended> {
  llm.setScript(script);
  const started = Date.now();
  const { uid } = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
    projectUid,
    engine: "agent",
    connectionUid: await connection(baseUrl),
    budget: { maxIterations: 6 },
  });
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the review hung for ${REVIEW_DEADLINE_MS} ms`)), REVIEW_DEADLINE_MS);
  });
  try {
    await Promise.race([server.services.queue.idle(), hung]);
  } finally {
    clearTimeout(timer);
  }
  const r = await owner.client.ok<Omit<Ended, "events" | "ms">>("query", "reviews.get", { uid });
  const events = await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid });
  return { ...r, events, ms: Date.now() - started };
}

/** Ended cleanly: a final status, a reason when it failed, a gap-free log that says how it ended. */
function expectClean(r: Ended) {
  expect(["completed", "failed"]).toContain(r.status);
  if (r.status === "failed") expectMessage(r.statusReason, "the failure reason");
  expect(r.events.map((e) => e.seq)).toEqual(r.events.map((_, i) => i + 1));
  const last = [...r.events].reverse().find((e) => e.type === "review_status");
  expect(last?.payload).toMatchObject({ status: r.status });
}

describe("a flaky model: the review succeeds after retries", () => {
  const cases: [string, RuleInput][] = [
    ["two 429s with retry-after", { status: 429, retryAfter: 1, times: 2 }],
    ["a 500", { status: 500, times: 1 }],
    ["a 529 overloaded", { status: 529, times: 1 }],
    ["a request that times out", { text: REPORT, delayMs: 2500, times: 1 }],
    ["a connection cut before the first event", { text: REPORT, cutAfter: 0, times: 1 }],
  ];
  for (const [name, fault] of cases) {
    it(
      name,
      async () => {
        const r = await review([fault, ...HEALTHY]);
        expectClean(r);
        expect(r.status, r.statusReason ?? "").toBe("completed");
        expect(r.findingsCount).toBe(1);
      },
      60_000,
    );
  }
});

describe("a broken model: the review fails with a reason, and nothing hangs", () => {
  const cases: [string, RuleInput[]][] = [
    ["a 429 storm that never ends", [{ status: 429, retryAfter: 1 }]],
    ["500s on every request", [{ status: 500 }]],
    ["every request times out", [{ text: REPORT, delayMs: 2500 }]],
    ["a stream that goes silent after it started", [{ text: ["Looking", " at", " the", " code"], stallAfter: 3 }]],
    [
      "a stream cut inside a tool call",
      [{ toolCalls: [{ name: "read_file", input: { path: "src/app.ts" }, chunks: 8 }], cutAfter: 5 }],
    ],
    ["the key is refused (401)", [{ status: 401, message: "invalid x-api-key" }]],
  ];
  for (const [name, script] of cases) {
    it(
      name,
      async () => {
        const r = await review(script);
        expectClean(r);
        expect(r.status).toBe("failed");
      },
      60_000,
    );
  }

  it("malformed SSE from a broken proxy", async () => {
    const r = await review(HEALTHY, proxyUrl);
    expectClean(r);
    expect(r.status).toBe("failed");
  }, 60_000);
});

describe("malformed tool calls end the review cleanly", () => {
  it("tool-call arguments that are not JSON: an error result the model can correct, or a failure with a reason", async () => {
    const r = await review([
      {
        match: "Review scope",
        toolCalls: [{ name: "read_file", arguments: '{"path": "src/app.ts', chunks: 2 }],
        times: 1,
      },
      { match: "not valid JSON", text: REPORT },
      ...HEALTHY,
    ]);
    expectClean(r);
  }, 60_000);
});
