/**
 * `npm run bench -- forges`: pull requests on the GitHub stand-in (test/helpers/github-stand-in.ts),
 * the real server, the static engine.
 *
 * - intake: the webhook's answer time under 50 deliveries/s (pull_request.closed of a known PR: signed,
 *   checked, recorded, queued) — baseline: GET /api/health at the same rate;
 * - first comment: webhook → the first inline comment posted, for a PR adding 1,000 lines over a
 *   5,000-file repository (FILES) — baseline: the same tree uploaded as a zip and reviewed from the web app
 *   (upload → import → static review completed);
 * - incremental: a push changing 20 lines → its check run posted.
 */
import { summarize } from "./_stats.ts";
import { createTestConfig } from "../test/helpers/db.ts";
import { startTestServer, signUp } from "../test/helpers/server.ts";
import { startGitHubStandIn } from "../test/helpers/github-stand-in.ts";
import { buildZip } from "../test/helpers/zip.ts";

/** The repository's size: 5,000 files (the figure), or `npm run bench -- forges <files>`. */
const FILES = Number(process.argv[3] ?? 5000);
const RATE = 50;
const DELIVERIES = 250;

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 600_000) {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function tree(): Record<string, string> {
  const files: Record<string, string> = { "README.md": "# big\n" };
  for (let i = 0; i < FILES; i++) files[`pkg${i % 50}/mod${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
  return files;
}

function addedFile(): string {
  const lines = Array.from({ length: 1000 }, (_, i) => `VALUE_${i} = ${i}`);
  lines[499] = 'AWS_ACCESS_KEY_ID = "AKIAZ7QW3RT5YU8IOPLK"';
  return `${lines.join("\n")}\n`;
}

export default async function bench() {
  const gh = await startGitHubStandIn();
  const t = await createTestConfig({
    GITHUB_APP_ID: String(gh.appId),
    GITHUB_APP_PRIVATE_KEY: gh.privateKey.replace(/\n/g, "\\n"),
    GITHUB_WEBHOOK_SECRET: gh.webhookSecret,
    GITHUB_API_URL: gh.url,
    OUTBOUND_ALLOWED_HOSTS: new URL(gh.url).host,
  });
  const server = await startTestServer(t);
  try {
    const owner = await signUp(server.url, { name: "Bench" });
    await owner.client.ok("mutate", "forges.connect", {
      workspaceId: owner.workspaceId,
      forge: "github",
      installationId: gh.installationId,
    });
    const post = async (event: string, payload: unknown) => {
      const d = gh.delivery(event, payload);
      const started = performance.now();
      const res = await fetch(`${server.url}/api/forges/github/webhook`, {
        method: "POST",
        headers: d.headers,
        body: d.body,
      });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`delivery answered ${res.status}`);
      return performance.now() - started;
    };

    // Baseline of the review: the same tree uploaded and reviewed from the web app.
    const base = tree();
    const head = { ...base, "src/config.py": addedFile() };
    const baselineStart = performance.now();
    const projectUid = crypto.randomUUID();
    await owner.client.ok("mutate", "projects.create", {
      workspaceId: owner.workspaceId,
      uid: projectUid,
      name: "upload",
    });
    const zip = buildZip(Object.entries(head).map(([name, data]) => ({ name, data })));
    const up = await fetch(`${server.url}/api/projects/${projectUid}/upload?kind=zip`, {
      method: "POST",
      headers: { cookie: owner.client.cookie, "content-type": "application/zip", origin: server.url },
      body: new Uint8Array(zip),
    });
    if (up.status !== 201) throw new Error(`upload answered ${up.status}: ${await up.text()}`);
    const { snapshotUid } = (await up.json()) as { snapshotUid: string };
    await until("the upload's import", async () => {
      const s = await owner.client.ok<{ status: string }>("query", "snapshots.get", { snapshotUid });
      return s.status === "ready";
    });
    const review = await owner.client.ok<{ uid: string }>("mutate", "reviews.start", {
      projectUid,
      engine: "static",
      scope: { kind: "paths", paths: ["src/config.py"] },
    });
    await until("the uploaded review", async () => {
      const r = await owner.client.ok<{ status: string }>("query", "reviews.get", { uid: review.uid });
      return r.status === "completed";
    });
    const baselineMs = performance.now() - baselineStart;

    // The PR: webhook → first inline comment.
    const repo = gh.addRepo("bench/big", 1);
    const baseSha = gh.commit(repo, base);
    const headSha = gh.commit(repo, head);
    const pull = gh.openPull(repo, { number: 1, title: "Config", headRef: "config", headSha, baseSha });
    const prStart = performance.now();
    await post("pull_request", gh.pullRequestPayload("opened", repo, pull));
    await until("the first inline comment", () => repo.comments.length > 0);
    const firstCommentMs = performance.now() - prStart;
    await until("the check run", () => repo.checkRuns.length === 1);

    // A push of a 20-line change.
    const changed = { ...head, "pkg1/mod1.py": Array.from({ length: 20 }, (_, i) => `X${i} = ${i}`).join("\n") + "\n" };
    pull.headSha = gh.commit(repo, changed);
    const pushStart = performance.now();
    await post("pull_request", gh.pullRequestPayload("synchronize", repo, pull));
    await until("the push's check run", () => repo.checkRuns.length === 2);
    const incrementalMs = performance.now() - pushStart;

    // Intake under 50 deliveries/s, and its baseline.
    const closed = gh.pullRequestPayload("closed", repo, pull);
    const paced = async (n: number, fn: () => Promise<number>) => {
      const pending: Promise<number>[] = [];
      for (let i = 0; i < n; i++) {
        pending.push(fn());
        await new Promise((r) => setTimeout(r, 1000 / RATE));
      }
      return Promise.all(pending);
    };
    const health = await paced(DELIVERIES, async () => {
      const started = performance.now();
      await (await fetch(`${server.url}/api/health`)).arrayBuffer();
      return performance.now() - started;
    });
    const intake = await paced(DELIVERIES, () => post("pull_request", closed));
    const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.99 * xs.length)]!;
    await server.services.queue.idle();
    if (gh.rejected.length) throw new Error(`the stand-in refused: ${gh.rejected.join("; ")}`);

    return {
      repository: { files: FILES + 1, prAddedLines: 1000, engine: "static" },
      webhookToFirstInlineCommentMs: Math.round(firstCommentMs),
      baselineUploadAndReviewFromWebAppMs: Math.round(baselineMs),
      incrementalPush20LinesToCheckRunMs: Math.round(incrementalMs),
      intakeAt50PerSecondMs: { ...summarize(intake), p99: Math.round(p99(intake) * 10) / 10 },
      baselineHealthAt50PerSecondMs: { ...summarize(health), p99: Math.round(p99(health) * 10) / 10 },
      targets: { firstInlineCommentP50Ms: 30_000, intakeP99Ms: 100, incrementalMs: 10_000 },
    };
  } finally {
    await server.stop();
    await gh.close();
  }
}
