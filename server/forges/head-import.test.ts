/**
 * A push imported onto the last reviewed snapshot, end to end against the GitHub stand-in (every
 * request checked against GitHub's OpenAPI description): the changed files come from the forge at the
 * new head (the contents API, not the archive), every other file from the previous snapshot on disk,
 * removed files are gone, and the review sees the pushed change. When the previous snapshot's files
 * are gone, the whole archive is taken again.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../test/helpers/db.ts";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { startGitHubStandIn, type GitHubStandIn, type StandInRepo } from "../../test/helpers/github-stand-in.ts";
import { search } from "../retrieval/search.ts";
import { connect, openChunkIndex } from "../retrieval/store/index.ts";
import { searchIndexName, snapshotDirs } from "../snapshots/storage.ts";
import { headLabel } from "./head-import.ts";

let gh: GitHubStandIn;
let server: TestServer;
let dataDir: string;

const TREE = {
  "README.md": "# shop\n",
  "src/app.py": 'def total(items):\n    return sum(i["price"] for i in items)\n',
  "src/util.py": "def half(x):\n    return x / 2\n",
  "src/old.py": "OLD = 1\n",
};
const SETTINGS = '"""Settings."""\nPAGE_SIZE = 50\nAWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"\n';

async function deliver(event: string, payload: unknown) {
  const d = gh.delivery(event, payload);
  const res = await fetch(`${server.url}/api/forges/github/webhook`, {
    method: "POST",
    headers: d.headers,
    body: d.body,
  });
  await res.arrayBuffer();
  return res.status;
}

async function settle() {
  for (let i = 0; i < 2; i++) {
    await server.services.queue.idle();
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The source folder of the ready snapshot imported at `sha`. */
async function srcAt(sha: string): Promise<string> {
  const row = await server.services.db.snapshot.findFirstOrThrow({
    where: { sourceLabel: headLabel("acme/shop", sha), status: "ready" },
    orderBy: { createdAt: "desc" },
  });
  return snapshotDirs(dataDir, row.projectId, row.id).src;
}

/** The files a full-text search of the snapshot imported at `sha` finds. */
async function searched(sha: string, query: string): Promise<string[]> {
  const row = await server.services.db.snapshot.findFirstOrThrow({
    where: { sourceLabel: headLabel("acme/shop", sha), status: "ready" },
    orderBy: { createdAt: "desc" },
  });
  const store = await connect(server.services.config.lancedbUri);
  const index = await openChunkIndex(store, searchIndexName(row.id));
  try {
    return index ? (await search(index, query, { mode: "fulltext" })).map((h) => h.file) : [];
  } finally {
    index?.close();
    store.close();
  }
}

beforeAll(async () => {
  gh = await startGitHubStandIn();
  const t = await createTestConfig({
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
    PIPELINES_ALLOWED_HOSTS: "",
    OUTBOUND_ALLOWED_HOSTS: new URL(gh.url).host,
  });
  dataDir = t.config.dataDir;
  server = await startTestServer(t);
  const ws = await server.services.db.workspace.create({ data: { name: "shop team" } });
  await server.services.db.forgeInstallation.create({
    data: { workspaceId: ws.id, forge: "github", externalId: String(gh.installationId) },
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await gh?.close();
});

describe("a push onto a reviewed pull request", () => {
  let r: StandInRepo;

  it("takes the changed files from the forge at the head and the rest from the last reviewed snapshot", async () => {
    r = gh.addRepo("acme/shop", 7001);
    const base = gh.commit(r, TREE);
    const head = gh.commit(r, { ...TREE, "src/settings.py": SETTINGS });
    const pull = gh.openPull(r, { number: 3, title: "Settings", headRef: "settings", headSha: head, baseSha: base });
    expect(await deliver("pull_request", gh.pullRequestPayload("opened", r, pull))).toBe(202);
    await settle();
    expect(r.checkRuns).toHaveLength(1);

    // Marks an unchanged file in the reviewed snapshot on disk: the archive at the new head has the
    // original, so the mark in the next snapshot proves where that file came from.
    const reviewedSrc = await srcAt(head);
    await writeFile(path.join(reviewedSrc, "src/util.py"), "def half(x):\n    return x / 2  # reviewed copy\n");

    const pushed = `${SETTINGS}BACKUP_KEY_ID = "AKIAQ3EGUZ5TNM4YB6XH"\n`;
    const tree = { ...TREE, "src/settings.py": pushed } as Record<string, string>;
    delete tree["src/old.py"];
    const requestsBefore = gh.requests.length;
    pull.headSha = gh.commit(r, tree);
    expect(await deliver("pull_request", gh.pullRequestPayload("synchronize", r, pull))).toBe(202);
    await settle();
    expect(gh.rejected).toEqual([]);

    const asked = gh.requests.slice(requestsBefore);
    expect(asked).toContain("GET repos/get-content");
    expect(asked).not.toContain("GET repos/download-zipball-archive");
    const src = await srcAt(pull.headSha);
    expect(await readFile(path.join(src, "src/settings.py"), "utf8")).toBe(pushed);
    expect(await readFile(path.join(src, "src/util.py"), "utf8")).toContain("# reviewed copy");
    expect(await readFile(path.join(src, "src/app.py"), "utf8")).toBe(TREE["src/app.py"]);
    await expect(readFile(path.join(src, "src/old.py"), "utf8")).rejects.toThrow(/ENOENT/);
    // The head's search index (started from the reviewed snapshot's) finds the pushed code, not the removed file.
    expect(await searched(pull.headSha, "BACKUP_KEY_ID")).toContain("src/settings.py");
    expect(await searched(pull.headSha, "half")).toContain("src/util.py");
    expect(await searched(pull.headSha, "OLD")).not.toContain("src/old.py");
    // The pushed line is what the review found: an inline comment on it, and a check run for the head.
    expect(r.comments.some((c) => c.path === "src/settings.py" && c.line === 4)).toBe(true);
    expect(r.checkRuns.map((c) => c.headSha)).toContain(pull.headSha);
  }, 120_000);

  it("takes the whole archive again when the last reviewed snapshot's files are gone", async () => {
    const pull = r.pulls.get(3)!;
    await rm(await srcAt(pull.headSha), { recursive: true, force: true });
    const tree = { ...r.commits.get(pull.headSha)!, "src/app.py": `${TREE["src/app.py"]}\nTAX = 0.2\n` };
    const requestsBefore = gh.requests.length;
    pull.headSha = gh.commit(r, tree);
    expect(await deliver("pull_request", gh.pullRequestPayload("synchronize", r, pull))).toBe(202);
    await settle();
    expect(gh.rejected).toEqual([]);

    expect(gh.requests.slice(requestsBefore)).toContain("GET repos/download-zipball-archive");
    const src = await srcAt(pull.headSha);
    expect(await readFile(path.join(src, "src/app.py"), "utf8")).toBe(tree["src/app.py"]);
    // The archive has the original, unmarked file.
    expect(await readFile(path.join(src, "src/util.py"), "utf8")).toBe(TREE["src/util.py"]);
    const pr = await server.services.db.forgePull.findFirstOrThrow({ where: { number: 3 } });
    expect(pr.lastReviewedSha).toBe(pull.headSha);
  }, 120_000);
});
