/**
 * Scale-out (`npm run bench -- scale`; needs DATABASE_URL=postgres://… and redis-server): real Argus
 * processes — two web nodes and one, then two workers — on one PostgreSQL and a private Redis.
 *
 * 1. Throughput: 20 agent reviews against a scripted model that takes 200 ms per response (three
 *    responses a review: list the files, read one, report), started through web node A at once;
 *    reviews per minute with one worker, then with two (the baseline is one worker).
 * 2. Delivery across nodes: 200 room clients, 100 on each web node, in one review's room while a
 *    worker streams its report (token deltas, coalesced into ~25 events/s): the delay from an event's
 *    storage (its `at`) to each client, p50 / p99, and how many events a client missed live.
 */
import type { Socket } from "socket.io-client";
import { createTestConfig, testProvider } from "../test/helpers/db.ts";
import { inviteAndSignUp, signUp } from "../test/helpers/server.ts";
import { hasRedisServer, startNode, startPrivateRedis, type NodeProcess } from "../test/scale/support/cluster.ts";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { modelFinding, reportText } from "../server/review/reviewer/test-support.ts";
import type { RoomEvent } from "../server/shared/room-events.ts";
import { reviewRoom } from "../server/shared/rooms.ts";
import { deliveryFigures, joinClients } from "./_scale-delivery.ts";

const REVIEWS = 20;
const CLIENTS = 200;
const MODEL_MS = 200;

const report = reportText([
  modelFinding({
    title: "SQL injection in find_items",
    file: "src/api.py",
    start_line: 19,
    evidence: `cursor.execute(f"SELECT id, name, stock FROM items WHERE name LIKE '%{name}%'")`,
    severity: "critical",
    category: "security",
  }),
]);
// A long report streamed word by word for the delivery part: ~2,400 deltas over ~12 s.
const longReport = `${"The handler builds SQL from request input and the pricing loop runs one step too far. ".repeat(160)}\n${report}`;

const round = (n: number) => Math.round(n * 10) / 10;

export default async function scale() {
  if (testProvider() !== "postgres") throw new Error("npm run bench -- scale needs DATABASE_URL=postgres://…");
  if (!hasRedisServer()) throw new Error("npm run bench -- scale needs redis-server (apt-get install redis-server)");
  // Stateless rules (reviews run side by side): the first turn lists, a listing's answer reads a
  // file, a read file's answer is the report.
  const llm = await startScriptedServer({
    script: {
      rules: [
        // (8 s before it starts: the 200 clients join meanwhile)
        {
          model: "bench-stream",
          match: "Review scope",
          text: longReport.split(/(?<= )/),
          delayMs: 8000,
          chunkDelayMs: 5,
        },
        { match: "Review scope", toolCalls: [{ name: "list_dir", input: { path: "." } }], delayMs: MODEL_MS },
        { match: "/— lines \\d+/", text: report, delayMs: MODEL_MS },
        { match: "/./s", toolCalls: [{ name: "read_file", input: { path: "src/api.py" } }], delayMs: MODEL_MS },
      ],
    },
  });
  const redis = await startPrivateRedis();
  const t = await createTestConfig({ AUTH_SECRET: "bench-scale-secret-0123456789abcdef" });
  const env = { ...t.env, REDIS_URL: redis.url, REDIS_PREFIX: "argus-bench", LOG_LEVEL: "error" };
  const nodes: NodeProcess[] = [];
  const node = async (role: "web" | "worker") => {
    const n = await startNode(role, env);
    nodes.push(n);
    return n;
  };
  const sockets: Socket[] = [];
  try {
    const [webA, webB] = await Promise.all([node("web"), node("web")]);
    await node("worker");
    const owner = await signUp(webA.url, { name: "Bench Owner" });
    const teammate = await inviteAndSignUp(owner, "member", "Bench Member");
    const connection = async (model: string) => {
      const uid = crypto.randomUUID();
      await owner.client.ok("mutate", "providers.save", {
        workspaceId: owner.workspaceId,
        uid,
        name: model,
        provider: "anthropic",
        baseUrl: llm.url,
        model,
        apiKey: "sk-bench",
      });
      return uid;
    };
    const reviewConnection = await connection("claude-sonnet-4-5");
    const { projectUid } = await owner.client.ok<{ projectUid: string }>("mutate", "projects.startDemo", {
      workspaceId: owner.workspaceId,
    });
    const start = (connectionUid: string) =>
      owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
        projectUid,
        engine: "agent",
        connectionUid,
        budget: { maxIterations: 6 },
        settings: { verify: false },
      });
    const statusOf = async (uid: string) =>
      (await owner.client.ok<{ status: string }>("query", "reviews.get", { uid })).status;

    /** Waits until none of `uids` is queued or running (one list query a poll); returns the others' count. */
    async function settle(uids: string[]): Promise<number> {
      const pending = new Set(uids);
      let notCompleted = 0;
      while (pending.size) {
        await new Promise((r) => setTimeout(r, 500));
        const { items } = await owner.client.ok<{ items: { uid: string; status: string }[] }>("query", "reviews.list", {
          workspaceId: owner.workspaceId,
          limit: 100,
        });
        for (const r of items) {
          if (!pending.has(r.uid) || r.status === "queued" || r.status === "running") continue;
          pending.delete(r.uid);
          if (r.status !== "completed") notCompleted++;
        }
      }
      return notCompleted;
    }

    async function throughput() {
      // Warm-up: every worker has run a review (modules loaded, connections open) before the clock starts.
      await settle(await Promise.all(Array.from({ length: 4 }, async () => (await start(reviewConnection)).uid)));
      const began = performance.now();
      const uids = await Promise.all(Array.from({ length: REVIEWS }, async () => (await start(reviewConnection)).uid));
      const notCompleted = await settle(uids);
      const minutes = (performance.now() - began) / 60_000;
      return { reviewsPerMinute: round(REVIEWS / minutes), seconds: round(minutes * 60), notCompleted };
    }

    const oneWorker = await throughput();
    await node("worker");
    const twoWorkers = await throughput();

    // Delivery across nodes.
    const room = reviewRoom((await start(await connection("bench-stream"))).uid);
    const received = await joinClients(
      room,
      CLIENTS,
      [
        { url: webA.url, cookie: owner.client.cookie },
        { url: webB.url, cookie: teammate.client.cookie },
      ],
      sockets,
    );
    // Counted: events stored after every client had joined.
    const logNow = await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid: room.slice("review:".length) });
    const joinedAt = logNow.at(-1)?.seq ?? 0;
    await (async () => {
      for (;;) {
        const s = await statusOf(room.slice("review:".length));
        if (s !== "queued" && s !== "running") return;
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    await new Promise((r) => setTimeout(r, 2000));
    const log = (await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid: room.slice("review:".length) }))
      .map((e) => e.seq)
      .filter((seq) => seq > joinedAt);
    return {
      reviews: REVIEWS,
      modelMsPerResponse: MODEL_MS,
      "baseline: one worker": oneWorker,
      "two workers": twoWorkers,
      speedup: Math.round((twoWorkers.reviewsPerMinute / oneWorker.reviewsPerMinute) * 100) / 100,
      delivery: deliveryFigures(received, log, joinedAt),
    };
  } finally {
    for (const s of sockets) s.close();
    for (const n of nodes) await n.kill("SIGTERM").catch(() => undefined);
    await redis.stop();
    await llm.close();
    await t.cleanup();
  }
}
