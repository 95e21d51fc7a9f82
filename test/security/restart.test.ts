/**
 * kill -9 in the middle of everything: a real server process (support/serve.ts) runs an agent review
 * against a slow scripted model, a knowledge-base rebuild, an import's background indexing and an
 * upload still streaming in — then gets SIGKILL (no shutdown hook runs) and is started again on the
 * same data. After the restart every job is failed with a reason or resumed to the end; nothing
 * half-written is served (the interrupted snapshot's files, its search index, the base's partial
 * index); the project still serves its previous snapshot; room logs have no seq gaps.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoomEvent } from "../../server/events/bus.ts";
import { startScriptedServer, type ScriptedServer } from "../../server/llm/scripted/server.ts";
import { createTestConfig, type TestConfig } from "../helpers/db.ts";
import { Client, signUp, type TestUser } from "../helpers/server.ts";
import { buildZip } from "../helpers/zip.ts";
import { startServerProcess, type ServerProcess } from "./support/process-server.ts";
import { openRoomClient } from "./support/wire.ts";
import { expectMessage } from "./support/expect.ts";
import { newProject, uploadDocuments, uploadZip, zipOf } from "./support/world.ts";

let t: TestConfig;
let llm: ScriptedServer;
let first: ServerProcess;
let second: ServerProcess | undefined;
let owner: TestUser;

/** What was in flight when the first process was killed. */
const ids = {
  projectUid: "",
  readySnapshot: "",
  interruptedSnapshot: "",
  trickleProject: "",
  reviewUid: "",
  baseUid: "",
};
const V1_TERM = `lighthouse${randomBytes(3).toString("hex")}`;
const V2_TERM = `harbour${randomBytes(3).toString("hex")}`;

/** Polls fn until it returns something truthy (or fails after ms). */
async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const words = ["tide", "rope", "mast", "keel", "sail", "anchor", "gull", "reef", "buoy", "wharf", "hull", "deck"];
function document(i: number, term: string, kb: number): string {
  const out: string[] = [`# Log ${i} ${term}`];
  let size = 0;
  for (let j = 0; size < kb * 1024; j++) {
    const line = `${words[(i * 7 + j) % words.length]} ${words[(i + j * 3) % words.length]} ${j} ${term}.`;
    out.push(line);
    size += line.length;
  }
  return out.join("\n");
}

/** A project big enough that its background indexing takes seconds. */
function bigProject(files: number): Buffer {
  const entries = [{ name: "README.md", data: "# Big\n" }]; // keeps src/ (a single top folder is stripped)
  for (let i = 0; i < files; i++) {
    const body = Array.from(
      { length: 12 },
      (_, j) => `export function f${i}_${j}(a: number): number {\n  return a * ${j} + ${i};\n}\n`,
    );
    entries.push({ name: `src/m${i}.ts`, data: body.join("\n") });
  }
  return buildZip(entries);
}

/** Starts an upload that sends half of a zip and then waits, mid-stream, until the server dies. */
function trickleUpload(url: string, cookie: string, projectUid: string): void {
  const zip = bigProject(50);
  const { hostname, port } = new URL(url);
  const req = http.request({
    host: hostname,
    port,
    method: "POST",
    path: `/api/projects/${projectUid}/upload?kind=zip`,
    headers: { cookie, origin: url, "content-type": "application/zip", "content-length": String(zip.length) },
  });
  req.on("error", () => undefined); // the server is about to be killed
  req.write(zip.subarray(0, zip.length >> 1));
}

async function roomLog(url: string, room: string): Promise<RoomEvent[]> {
  const client = await openRoomClient(url, owner.client.cookie);
  try {
    const reply = await client.join(room);
    if (!reply.ok) throw new Error(`cannot join ${room}: ${reply.message}`);
    return reply.events;
  } finally {
    client.close();
  }
}

const expectNoGaps = (events: RoomEvent[], room: string) =>
  expect(
    events.map((e) => e.seq),
    `${room} has seq gaps`,
  ).toEqual(events.map((_, i) => i + 1));

beforeAll(async () => {
  // The review's model streams slowly forever (well past the kill), one word every 50 ms.
  llm = await startScriptedServer({
    script: [{ text: Array.from({ length: 2000 }, (_, i) => `word${i} `), chunkDelayMs: 50 }],
  });
  t = await createTestConfig();
  const env = { ...t.env, LOG_LEVEL: "info" };
  first = await startServerProcess(env);
  const url = first.url;
  owner = await signUp(url, { name: "Owner" });
  const ws = owner.workspaceId;

  // A project with a ready snapshot (what must still be served after the restart).
  ids.projectUid = await newProject(owner, ws, "Harbour");
  const ready = await uploadZip(
    first,
    owner,
    ids.projectUid,
    zipOf({ "src/app.ts": "export const app = 1;\n", "README.md": "# Harbour\n" }),
  );
  ids.readySnapshot = ((await ready.json()) as { snapshotUid: string }).snapshotUid;
  await until("the first import", async () => {
    const s = await owner.client.ok<{ status: string }>("query", "snapshots.get", { snapshotUid: ids.readySnapshot });
    return s.status === "ready";
  });

  // A knowledge base with a complete first index.
  ids.baseUid = (
    await owner.client.ok<{ uid: string }>("mutate", "knowledge.create", { workspaceId: ws, name: "Logs" })
  ).uid;
  expect((await uploadDocuments(first, owner, ids.baseUid, { "v1.md": document(0, V1_TERM, 4) })).status).toBe(201);
  await until("the first index", async () => {
    const b = await owner.client.ok<{ status: string }>("query", "knowledge.get", { uid: ids.baseUid });
    return b.status === "ready";
  });
  // 1. An agent review talking to the slow model.
  const connectionUid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: ws,
    uid: connectionUid,
    name: "slow model",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-5-5",
    apiKey: "sk-test",
  });
  ids.reviewUid = (
    await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
      projectUid: ids.projectUid,
      engine: "agent",
      connectionUid,
    })
  ).uid;

  // 2. An import whose background indexing is under way.
  const big = await uploadZip(first, owner, ids.projectUid, bigProject(1200), "big.zip");
  expect(big.status).toBe(201);
  ids.interruptedSnapshot = ((await big.json()) as { snapshotUid: string }).snapshotUid;

  // 3. A rebuild of the base with much more to index.
  const docs = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`v2-${i}.md`, document(i + 1, V2_TERM, 60)]));
  expect((await uploadDocuments(first, owner, ids.baseUid, docs)).status).toBe(201);

  // 4. An upload still streaming in.
  ids.trickleProject = await newProject(owner, ws, "Trickle");
  trickleUpload(url, owner.client.cookie, ids.trickleProject);

  await until("everything in flight at once", async () => {
    const [review, snap, base, trickle] = await Promise.all([
      owner.client.ok<{ status: string }>("query", "reviews.get", { uid: ids.reviewUid }),
      owner.client.ok<{ status: string }>("query", "snapshots.get", { snapshotUid: ids.interruptedSnapshot }),
      owner.client.ok<{ status: string; progress: number }>("query", "knowledge.get", { uid: ids.baseUid }),
      owner.client.ok<{ status: string }[]>("query", "snapshots.list", { projectUid: ids.trickleProject }),
    ]);
    const events = await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid: ids.reviewUid });
    if (snap.status === "ready" || snap.status === "failed")
      throw new Error(`the big import finished (${snap.status}) before the kill: make it bigger`);
    if (base.status === "ready") throw new Error("the rebuild finished before the kill: give it more to index");
    return (
      review.status === "running" &&
      events.some((e) => e.type === "token") &&
      snap.status !== "ingesting" &&
      base.status === "indexing" &&
      base.progress > 0 &&
      trickle.length === 1
    );
  });
  await first.kill9();

  second = await startServerProcess(env);
  // Same database, so the session cookie still signs the owner in; only the address changed.
  owner = { ...owner, client: new Client(second.url, owner.client.cookie) };
}, 300_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  await llm?.close();
  await t?.cleanup();
});

const url = () => second!.url;
const dataDir = () => t.config.dataDir;

describe("after kill -9 and a restart", () => {
  it("the running review is failed with a reason, and its room log has no gap", async () => {
    const review = await owner.client.ok<{ status: string; statusReason: string | null }>("query", "reviews.get", {
      uid: ids.reviewUid,
    });
    expect(review.status).toBe("failed");
    expectMessage(review.statusReason);
    const events = await roomLog(url(), `review:${ids.reviewUid}`);
    expectNoGaps(events, "the review room");
    expect(events.at(-1)).toMatchObject({ type: "review_status", payload: { status: "failed" } });
    // Nothing was written as if it completed.
    expect(events.some((e) => e.type === "report")).toBe(false);
  });

  it("the interrupted import is failed with a reason and none of its files, tree or index are served", async () => {
    const snap = await owner.client.ok<{ status: string; message: string | null }>("query", "snapshots.get", {
      snapshotUid: ids.interruptedSnapshot,
    });
    expect(snap.status).toBe("failed");
    expectMessage(snap.message);
    const file = await owner.client.query("snapshots.file", {
      snapshotUid: ids.interruptedSnapshot,
      path: "src/m1.ts",
    });
    expect(file.status).not.toBe(200);
    expect(await owner.client.ok("query", "snapshots.tree", { snapshotUid: ids.interruptedSnapshot })).toEqual([]);
    const search = await owner.client.query("snapshots.search", {
      snapshotUid: ids.interruptedSnapshot,
      query: "f1_1",
    });
    expect(search.status).not.toBe(200);
    const row = await owner.client.ok<{ status: string }[]>("query", "snapshots.list", { projectUid: ids.projectUid });
    expect(row.map((s) => s.status).sort()).toEqual(["failed", "ready"]);
  });

  it("the project still serves its previous snapshot, and a new review runs on it", async () => {
    const file = await owner.client.ok<{ content: string }>("query", "snapshots.file", {
      snapshotUid: ids.readySnapshot,
      path: "src/app.ts",
    });
    expect(file.content).toBe("export const app = 1;\n");
    const review = await owner.client.ok<{ uid: string; snapshotUid: string }>("mutate", "reviews.start", {
      projectUid: ids.projectUid,
      engine: "static",
    });
    expect(review.snapshotUid).toBe(ids.readySnapshot);
    await until("the static review", async () => {
      const r = await owner.client.ok<{ status: string }>("query", "reviews.get", { uid: review.uid });
      return r.status === "completed";
    });
  });

  it("the upload cut off mid-stream is failed, and no partial files are left", async () => {
    const [snap] = await owner.client.ok<{ uid: string; status: string; message: string | null }[]>(
      "query",
      "snapshots.list",
      { projectUid: ids.trickleProject },
    );
    expect(snap?.status).toBe("failed");
    expectMessage(snap?.message);
    const project = path.join(dataDir(), "projects");
    const leftovers = (dir: string): string[] =>
      existsSync(dir)
        ? readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
            e.name.includes(".partial")
              ? [path.join(dir, e.name)]
              : e.isDirectory()
                ? leftovers(path.join(dir, e.name))
                : [],
          )
        : [];
    expect(leftovers(project)).toEqual([]);
  });

  it("the knowledge base keeps serving its last complete index, then finishes the rebuild", async () => {
    // Right after the restart: the previous index answers (never a half-written one, never nothing).
    const early = await owner.client.ok<{ documentName: string }[]>("query", "knowledge.search", {
      uid: ids.baseUid,
      query: V1_TERM,
      mode: "fulltext",
    });
    expect(early.map((h) => h.documentName)).toContain("v1.md");
    const base = await until(
      "the resumed rebuild",
      async () => {
        const b = await owner.client.ok<{ status: string; message: string | null; readyDocuments: number }>(
          "query",
          "knowledge.get",
          { uid: ids.baseUid },
        );
        return b.status === "ready" || b.status === "failed" ? b : undefined;
      },
      180_000,
    );
    if (base.status === "failed") {
      expectMessage(base.message);
    } else {
      expect(base.readyDocuments).toBe(41);
      const hits = await owner.client.ok<unknown[]>("query", "knowledge.search", { uid: ids.baseUid, query: V2_TERM });
      expect(hits.length).toBeGreaterThan(0);
    }
    expectNoGaps(await roomLog(url(), `kb:${ids.baseUid}`), "the knowledge-base room");
  }, 200_000);

  it("the first process logged no crash before it was killed, the second none since", () => {
    for (const out of [first.output, second!.output])
      expect(out.filter((l) => /uncaught|unhandled/i.test(l))).toEqual([]);
  });
});
