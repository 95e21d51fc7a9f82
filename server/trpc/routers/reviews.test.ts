/**
 * Reviews through the HTTP API with the static engine (no model needed): the demo project end to end,
 * the lifecycle (cancel, re-run, delete, restart recovery), false positives across re-runs, roles and
 * refusals. Agent-engine reviews are covered in server/review/reviewer with the scripted LLM server.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { startServerWithTeam } from "./test-support.ts";

const { server, owner, viewer } = await startServerWithTeam();

type ReviewView = {
  uid: string;
  status: string;
  statusReason: string | null;
  engine: string;
  projectUid: string;
  snapshotUid: string | null;
  findingsCount: number;
  scoreOverall: number | null;
};
type ReviewDetail = ReviewView & {
  report: { engineLabel: string; summary: string; overallScore: number; stages: Record<string, number> } | null;
  files: { path: string; score: number; counts: Record<string, number> }[];
};
type Finding = {
  fingerprint: string;
  title: string;
  severity: string;
  category: string;
  file: string;
  startLine: number;
  endLine: number;
  evidence: string;
  dismissed: boolean;
  source: string;
  ruleId: string | null;
  explanation: string;
  trace: { file: string; line: number; label: string }[] | null;
};

let demo: { projectUid: string; review: ReviewView };

beforeAll(async () => {
  demo = await owner.client.ok("mutate", "projects.startDemo", { workspaceId: owner.workspaceId });
  await server.services.queue.idle();
}, 180_000);

const get = (uid: string, user = owner) => user.client.ok<ReviewDetail>("query", "reviews.get", { uid });
const findings = (reviewUid: string, extra: Record<string, unknown> = {}) =>
  owner.client.ok<Finding[]>("query", "reviews.findings", { reviewUid, ...extra });

describe("a static review of the demo project", () => {
  it("completes with real findings located in the code, a per-file rollup and a label saying no LLM was used", async () => {
    const review = await get(demo.review.uid, viewer);
    expect(review.status).toBe("completed");
    expect(review.engine).toBe("static");
    expect(review.report?.engineLabel).toBe("static analysis — no LLM");
    const all = await findings(demo.review.uid);
    expect(all.length).toBe(review.findingsCount);
    const sqli = all.find((f) => f.file === "src/api.py" && /SQL/i.test(f.title));
    expect(sqli).toMatchObject({
      severity: "critical",
      category: "security",
      startLine: 19,
      source: "static",
      ruleId: "injection/sql",
    });
    expect(sqli!.evidence).toContain("SELECT id, name, stock FROM items");
    // Its data flow, stored with the pre-pass finding and carried to the review's (both in the database).
    expect(sqli!.trace).toEqual([
      { file: "src/api.py", line: 17, label: 'request.args.get("name", "")' },
      { file: "src/api.py", line: 17, label: "name = …" },
      { file: "src/api.py", line: 19, label: "cursor.execute()" },
    ]);
    expect(all.find((f) => f.file === "src/settings.py")!.trace).toBeNull();
    const snapshotFindings = await owner.client.ok<{ ruleId: string; startLine: number; trace: unknown }[]>(
      "query",
      "snapshots.findings",
      { snapshotUid: review.snapshotUid!, file: "src/api.py" },
    );
    expect(snapshotFindings.find((f) => f.ruleId === "injection/sql")!.trace).toEqual(sqli!.trace);
    expect(all.some((f) => f.file === "src/settings.py" && f.severity === "critical")).toBe(true);
    // The eslint and Argus findings on the same exec() line are one finding, not two: merged in the
    // pre-pass (one per place and weakness), which names the other tool.
    const exec = all.filter((f) => f.file === "src/server.js" && f.startLine === 24);
    expect(exec).toHaveLength(1);
    expect(exec[0]!.explanation).toContain("also reported by eslint security/detect-child-process");
    // Sorted worst first; files at risk with counts.
    expect(all[0]!.severity).toBe("critical");
    const serverJs = review.files.find((f) => f.path === "src/server.js")!;
    expect(serverJs.score).toBeLessThan(100);
    expect(serverJs.counts.critical).toBeGreaterThanOrEqual(2);
    expect(review.scoreOverall).toBeLessThan(50);
  });

  it("filters and sorts findings", async () => {
    const critical = await findings(demo.review.uid, { severity: "critical" });
    expect(critical.length).toBeGreaterThan(0);
    expect(critical.every((f) => f.severity === "critical")).toBe(true);
    const byFile = await findings(demo.review.uid, { sort: "file" });
    expect(byFile.map((f) => f.file)).toEqual([...byFile.map((f) => f.file)].sort());
    const inSettings = await findings(demo.review.uid, { file: "src/settings.py" });
    expect(inSettings.every((f) => f.file === "src/settings.py")).toBe(true);
  });

  it("records every step as events that replay", async () => {
    const events = await owner.client.ok<{ seq: number; type: string; payload: { status?: string } }[]>(
      "query",
      "reviews.events",
      { uid: demo.review.uid },
    );
    const statuses = events.filter((e) => e.type === "review_status").map((e) => e.payload.status);
    expect(statuses).toEqual(["queued", "running", "completed"]);
    expect(events.some((e) => e.type === "report")).toBe(true);
    expect(events.at(-1)!.type).toBe("done");
    const later = await owner.client.ok<{ seq: number }[]>("query", "reviews.events", {
      uid: demo.review.uid,
      afterSeq: events[1]!.seq,
    });
    expect(later[0]!.seq).toBe(events[2]!.seq);
  });
});

describe("false positives and re-runs", () => {
  it("a re-run of the same code yields the same fingerprints, and a dismissed finding is not raised again", async () => {
    const first = await findings(demo.review.uid);
    const target = first.find((f) => f.file === "src/server.js" && /md5/i.test(f.title))!;
    expect(target).toBeDefined();
    await owner.client.ok("mutate", "reviews.dismiss", {
      reviewUid: demo.review.uid,
      fingerprint: target.fingerprint,
      reason: "test fixture",
    });
    expect((await findings(demo.review.uid)).find((f) => f.fingerprint === target.fingerprint)!.dismissed).toBe(true);

    const rerun = await owner.client.ok<ReviewView>("mutate", "reviews.rerun", { uid: demo.review.uid });
    await server.services.queue.idle();
    const second = await get(rerun.uid);
    expect(second.status).toBe("completed");
    const again = await findings(rerun.uid);
    expect(again.map((f) => f.fingerprint)).not.toContain(target.fingerprint);
    expect(new Set(again.map((f) => f.fingerprint))).toEqual(
      new Set(first.map((f) => f.fingerprint).filter((p) => p !== target.fingerprint)),
    );
    expect(second.report!.stages.droppedDismissed).toBe(1);

    await owner.client.ok("mutate", "reviews.undismiss", {
      reviewUid: demo.review.uid,
      fingerprint: target.fingerprint,
    });
    expect((await findings(demo.review.uid)).find((f) => f.fingerprint === target.fingerprint)!.dismissed).toBe(false);
  });

  it("a severity floor and a path scope narrow the review", async () => {
    const review = await owner.client.ok<ReviewView>("mutate", "reviews.start", {
      projectUid: demo.projectUid,
      engine: "static",
      scope: { kind: "paths", paths: ["src/*.py"] },
      settings: { minSeverity: "critical" },
    });
    await server.services.queue.idle();
    const list = await findings(review.uid);
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((f) => f.severity === "critical" && f.file.endsWith(".py"))).toBe(true);
    expect((await get(review.uid)).report!.stages.droppedBelowSeverity).toBeGreaterThan(0);
  });
});

describe("refusals", () => {
  it("a viewer cannot start, cancel or dismiss; strangers see nothing", async () => {
    const start = await viewer.client.mutate("reviews.start", { projectUid: demo.projectUid, engine: "static" });
    expect(start.status).toBe(403);
    const dismiss = await viewer.client.mutate("reviews.dismiss", { reviewUid: demo.review.uid, fingerprint: "x" });
    expect(dismiss.status).toBe(403);
    const anonymous = await fetch(
      `${server.url}/api/trpc/reviews.get?input=${encodeURIComponent(JSON.stringify({ uid: demo.review.uid }))}`,
    );
    expect(anonymous.status).toBe(401);
  });

  it("a project without code, an agent review without a key and a path scope matching nothing get clear messages", async () => {
    const empty = crypto.randomUUID();
    await owner.client.ok("mutate", "projects.create", { workspaceId: owner.workspaceId, uid: empty, name: "empty" });
    const noCode = await owner.client.mutate("reviews.start", { projectUid: empty, engine: "static" });
    expect(noCode.status).toBe(400);
    expect(noCode.error!.message).toMatch(/no imported code yet/);

    const noKey = await owner.client.mutate("reviews.start", { projectUid: demo.projectUid, engine: "agent" });
    expect(noKey.status).toBe(400);
    expect(noKey.error!.message).toMatch(/Settings → Model providers|static engine/);

    const nothing = await owner.client.ok<ReviewView>("mutate", "reviews.start", {
      projectUid: demo.projectUid,
      engine: "static",
      scope: { kind: "paths", paths: ["does/not/exist/**"] },
    });
    await server.services.queue.idle();
    const failed = await get(nothing.uid);
    expect(failed.status).toBe("failed");
    expect(failed.statusReason).toMatch(/No file of the project matches "does\/not\/exist\/\*\*"/);
  });
});

describe("lifecycle", () => {
  async function insertReview(status: string) {
    const project = await server.services.db.project.findUniqueOrThrow({ where: { uid: demo.projectUid } });
    const source = await server.services.db.review.findUniqueOrThrow({ where: { uid: demo.review.uid } });
    const { id: _id, uid: _uid, createdAt: _c, report: _r, ...rest } = source;
    return server.services.db.review.create({
      data: { ...rest, uid: crypto.randomUUID(), status, projectId: project.id, findingsCount: 0, report: null },
    });
  }

  it("a running review blocks deleting it and its project (409); a queued one can be cancelled", async () => {
    const running = await insertReview("running");
    const del = await owner.client.mutate("reviews.remove", { uid: running.uid });
    expect(del.status).toBe(409);
    const delProject = await owner.client.mutate("projects.delete", { uid: demo.projectUid });
    expect(delProject.status).toBe(409);
    expect(delProject.error!.message).toMatch(/still running/);
    await server.services.db.review.update({ where: { id: running.id }, data: { status: "failed" } });

    const queued = await insertReview("queued");
    const cancelled = await owner.client.ok<ReviewView>("mutate", "reviews.cancel", { uid: queued.uid });
    expect(cancelled.status).toBe("cancelled");
    const again = await owner.client.mutate("reviews.cancel", { uid: queued.uid });
    expect(again.status).toBe(409);
  });

  it("after a restart, running reviews are failed as interrupted and queued ones run", async () => {
    const running = await insertReview("running");
    const queued = await insertReview("queued");
    const recovered = await server.services.reviews.recoverInterrupted();
    expect(recovered).toEqual({ failed: 1, requeued: 1 });
    await server.services.queue.idle();
    expect((await get(running.uid)).statusReason).toMatch(/Interrupted by a server restart/);
    expect((await get(queued.uid)).status).toBe("completed");
  });

  it("deleting a review drops its findings, files and events; deleting the project drops every review", async () => {
    const r = await owner.client.ok<ReviewView>("mutate", "reviews.rerun", { uid: demo.review.uid });
    await server.services.queue.idle();
    const row = await server.services.db.review.findUniqueOrThrow({ where: { uid: r.uid } });
    await owner.client.ok("mutate", "reviews.remove", { uid: r.uid });
    expect(await server.services.db.reviewFinding.count({ where: { reviewId: row.id } })).toBe(0);
    expect(await server.services.db.reviewFile.count({ where: { reviewId: row.id } })).toBe(0);
    expect(await server.services.events.history(`review:${r.uid}`)).toEqual([]);
    expect((await owner.client.query("reviews.get", { uid: r.uid })).status).toBe(404);

    const page = await owner.client.ok<{ items: ReviewView[]; nextCursor: string | null }>("query", "reviews.list", {
      workspaceId: owner.workspaceId,
      limit: 2,
    });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
    const next = await owner.client.ok<{ items: ReviewView[] }>("query", "reviews.list", {
      workspaceId: owner.workspaceId,
      limit: 2,
      cursor: page.nextCursor,
    });
    expect(next.items[0]!.uid).not.toBe(page.items[1]!.uid);
    const completed = await owner.client.ok<{ items: ReviewView[] }>("query", "reviews.list", {
      workspaceId: owner.workspaceId,
      status: "completed",
      limit: 100,
    });
    expect(completed.items.every((i) => i.status === "completed")).toBe(true);

    const trend = await owner.client.ok<{ critical: number }[]>("query", "reviews.trend", {
      projectUid: demo.projectUid,
    });
    expect(trend.length).toBeGreaterThan(1);
    expect(trend[0]!.critical).toBeGreaterThan(0);

    await owner.client.ok("mutate", "projects.delete", { uid: demo.projectUid });
    expect(await server.services.db.review.count({ where: { projectId: row.projectId } })).toBe(0);
    expect(await server.services.db.reviewFinding.count({ where: { projectId: row.projectId } })).toBe(0);
  });
});
