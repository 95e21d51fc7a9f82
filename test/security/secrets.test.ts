/**
 * Canary secrets end to end, against a real server process whose every log line is captured (debug
 * level): a workspace provider's API key, a git access token, the server's own AUTH_SECRET, and
 * files outside the snapshot / ignored inside it. A hostile model tries to read them through its
 * tools and reports findings in files it must not see; the provider echoes the key in an error; a git
 * import with a token fails. Then the logs, every room event, every export format, everything sent
 * to the model and every API response of the run are searched: no canary may appear anywhere.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoomEvent } from "../../server/events/bus.ts";
import { startScriptedServer, type ScriptedServer } from "../../server/llm/scripted/server.ts";
import { modelFinding, reportText } from "../../server/review/reviewer/test-support.ts";
import { createTestConfig, type TestConfig } from "../helpers/db.ts";
import { Client, inviteAndSignUp, signUp, type TestUser } from "../helpers/server.ts";
import { findLeaks, HOST_FILE_MARKERS, makeCanaries } from "./support/canaries.ts";
import { plantHostileFiles, type PlantedSnapshot } from "./support/hostile-paths.ts";
import { startServerProcess, type ServerProcess } from "./support/process-server.ts";
import { RecordingClient } from "./support/recording-client.ts";
import { rawRequest } from "./support/wire.ts";
import { newProject, projectFiles, uploadZip, zipOf } from "./support/world.ts";

const canaries = makeCanaries();
let t: TestConfig;
let server: ServerProcess;
let llm: ScriptedServer;
let owner: TestUser;
let viewer: TestUser;
let planted: PlantedSnapshot;
let needles: string[];
const reviews: string[] = [];
const exports: string[] = [];

const recording = (u: TestUser): TestUser => ({ ...u, client: new RecordingClient(u.client.baseUrl, u.client.cookie) });

/** Tool calls a hostile model makes: every way it might reach the canaries. */
const HOSTILE_CALLS = [
  { name: "read_file", input: { path: "../../../../outside/target.txt" } },
  { name: "read_file", input: { path: "link-out" } },
  { name: "read_file", input: { path: ".env" } },
  { name: "read_file", input: { path: "../../../../auth-secret" } },
  { name: "list_dir", input: { path: "dir-link" } },
  { name: "grep", input: { pattern: "CANARY", literal: true } },
  { name: "get_diff", input: { from: "HEAD~1", paths: [".env"] } },
  { name: "get_file_summary", input: { path: "src/util.ts" } },
];

/** A report whose findings sit in files the model must not see (all dropped) plus one real one. */
function hostileReport(): string {
  const secretFiles = ["../../../../outside/target.txt", ".env", "link-out", "src/util.ts", "/etc/passwd"];
  return reportText([
    ...secretFiles.map((file) =>
      modelFinding({ title: `Secret in ${file}`, file, start_line: 1, evidence: 'const k = "hunter2";' }),
    ),
    modelFinding({
      title: "SQL injection in findUser",
      file: "src/app.ts",
      start_line: 3,
      evidence: `return db.query("SELECT * FROM users WHERE id = '" + id + "'");`,
    }),
  ]);
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const settledReview = (uid: string) =>
  waitFor(`review ${uid}`, async () => {
    const r = await owner.client.ok<{ status: string }>("query", "reviews.get", { uid });
    return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
  });

beforeAll(async () => {
  llm = await startScriptedServer({
    script: [
      { match: "Verify this finding", text: 'VERDICT: {"verdict": "confirmed", "evidence": "src/app.ts:3"}' },
      { match: "review it critically", text: hostileReport() },
      { match: "Review scope", toolCalls: HOSTILE_CALLS },
      { text: hostileReport() },
    ],
  });
  t = await createTestConfig({ LLM_MAX_RETRIES: "0", INGEST_GIT_TIMEOUT_SECONDS: "4" });
  server = await startServerProcess({ ...t.env, LOG_LEVEL: "debug" });
  owner = recording(await signUp(server.url, { name: "Owner" }));
  viewer = recording(await inviteAndSignUp(owner, "viewer", "Viewer"));
  const ws = owner.workspaceId;

  const projectUid = await newProject(owner, ws, "Canary project");
  const up = await uploadZip(server, owner, projectUid, zipOf(projectFiles(canaries.tagA)));
  expect(up.status).toBe(201);
  const { snapshotUid } = (await up.json()) as { snapshotUid: string };
  await waitFor("the import", async () => {
    const s = await owner.client.ok<{ status: string }>("query", "snapshots.get", { snapshotUid });
    return s.status === "ready";
  });
  // The snapshot's folder, found on disk (the API never shows internal ids or paths).
  const projects = path.join(t.config.dataDir, "projects");
  const [projectDir] = readdirSync(projects);
  const [snapshotDir] = readdirSync(path.join(projects, projectDir!, "snapshots"));
  planted = plantHostileFiles({
    root: path.join(projects, projectDir!, "snapshots", snapshotDir!, "src"),
    dataDir: t.config.dataDir,
    canaries,
    swap: "src/util.ts",
  });
  const authSecret = readFileSync(path.join(t.config.dataDir, "auth-secret"), "utf8").trim();
  needles = [
    canaries.providerKey,
    canaries.gitToken,
    canaries.outside,
    canaries.outsideName,
    canaries.ignored,
    authSecret,
    ...HOST_FILE_MARKERS,
  ];

  // The provider connection holding the key; the model behind it is hostile.
  const connectionUid = crypto.randomUUID();
  await owner.client.ok("mutate", "providers.save", {
    workspaceId: ws,
    uid: connectionUid,
    name: "Hostile model",
    provider: "anthropic",
    baseUrl: llm.url,
    model: "claude-sonnet-5-5",
    apiKey: canaries.providerKey,
  });
  const start = () =>
    owner.client.ok<{ uid: string }>("mutate", "reviews.start", { projectUid, engine: "agent", connectionUid });

  // 1. A review by the hostile model: it completes with the one real finding.
  reviews.push((await start()).uid);
  const done = await settledReview(reviews[0]!);
  expect(done.status).toBe("completed");
  for (const format of ["md", "sarif", "json"]) {
    const r = await rawRequest(server.url, {
      path: `/api/reviews/${reviews[0]}/export?format=${format}`,
      headers: { cookie: viewer.client.cookie },
    });
    expect(r.status).toBe(200);
    exports.push(r.body);
  }

  // 2. The provider answers with an error that echoes the key, as some do for a bad key.
  llm.setScript([{ status: 401, message: `invalid x-api-key: ${canaries.providerKey}` }]);
  reviews.push((await start()).uid);
  expect((await settledReview(reviews[1]!)).status).toBe("failed");
  await owner.client.mutate("providers.test", { uid: connectionUid });

  // 3. A git import with a token, to a host that does not answer, and one with the token in the URL.
  const gitProject = await newProject(owner, ws, "Private repo");
  const git = await owner.client.mutate<{ uid: string }>("snapshots.importGit", {
    projectUid: gitProject,
    url: "https://127.0.0.1:9/acme/app.git",
    token: canaries.gitToken,
  });
  if (git.status === 200)
    await waitFor("the git import", async () => {
      const s = await owner.client.ok<{ status: string }>("query", "snapshots.get", { snapshotUid: git.data.uid });
      return s.status === "failed" || s.status === "ready";
    });
  // A token pasted into the URL is refused; the answer goes back to the person who pasted it (not
  // recorded), but nothing keeps or logs it (checked below through the project and the logs).
  const pasted = await new Client(server.url, owner.client.cookie).mutate("snapshots.importGit", {
    projectUid: gitProject,
    url: `https://x-access-token:${canaries.gitToken}@127.0.0.1:9/acme/app.git`,
  });
  expect(pasted.status).toBe(400);

  // Every read the app offers, as the owner (who sees the most) and as a viewer.
  for (const user of [owner, viewer]) {
    await user.client.query("projects.list", { workspaceId: ws });
    await user.client.query("projects.get", { uid: gitProject });
    await user.client.query("providers.list", { workspaceId: ws });
    await user.client.query("snapshots.list", { projectUid: gitProject });
    await user.client.query("snapshots.list", { projectUid });
    await user.client.query("reviews.list", { workspaceId: ws });
    for (const uid of reviews) {
      await user.client.query("reviews.get", { uid });
      await user.client.query("reviews.findings", { reviewUid: uid });
      await user.client.query("reviews.events", { uid });
    }
    await user.client.query("snapshots.findings", { snapshotUid });
    await user.client.query("snapshots.tree", { snapshotUid });
  }
  await owner.client.query("account.invites", { workspaceId: ws });
}, 240_000);

afterAll(async () => {
  planted?.cleanup();
  await server?.stop();
  await llm?.close();
  await t?.cleanup();
});

describe("canary secrets never come out", () => {
  it("the model did try: its tool calls and findings aimed at the canaries", () => {
    const first = llm.requests.find((r) => r.lastUserText.includes("Review scope"));
    expect(first).toBeDefined();
    expect(JSON.stringify(llm.requests)).toContain("../../../../outside/target.txt");
  });

  it("in the server's logs (debug level)", () => {
    const log = server.output.join("\n");
    expect(log.length).toBeGreaterThan(1000); // the capture works
    expect(findLeaks(log, needles)).toEqual([]);
  });

  it("in the review rooms' events", async () => {
    for (const uid of reviews) {
      const events = await owner.client.ok<RoomEvent[]>("query", "reviews.events", { uid });
      expect(events.length).toBeGreaterThan(0);
      expect(findLeaks(events, needles), `review:${uid}`).toEqual([]);
    }
  });

  it("in the failed review's reason (the provider echoed the key)", async () => {
    const r = await owner.client.ok<{ statusReason: string | null }>("query", "reviews.get", { uid: reviews[1] });
    expect(r.statusReason).toBeTruthy();
    expect(findLeaks(r.statusReason, needles)).toEqual([]);
  });

  it("in every export format", () => {
    expect(exports).toHaveLength(3);
    for (const body of exports) {
      expect(body).toContain("SQL injection in findUser");
      expect(findLeaks(body, needles)).toEqual([]);
    }
  });

  it("in what Argus sent to the model (tool results, first message)", () => {
    const sent = llm.requests.map((r) => r.body);
    // The key itself travels only in the auth header, which the scripted server records as [redacted].
    expect(findLeaks(sent, needles)).toEqual([]);
  });

  it("in any API response of the run", () => {
    expect(RecordingClient.bodies.length).toBeGreaterThan(20);
    const leaks = RecordingClient.bodies.filter((b) => findLeaks(b, needles).length > 0);
    expect(leaks.map((b) => JSON.stringify(b).slice(0, 300))).toEqual([]);
  });
});
