import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../../test/helpers/server.ts";
import { sampleInput } from "./testing.ts";

// The download route end to end: the real server, a real session, a review row with a stored report.
let server: TestServer;
let owner: TestUser;
let reviewUid: string;
let queuedUid: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Owner" });
  const projectUid = crypto.randomUUID();
  await owner.client.ok("mutate", "projects.create", {
    workspaceId: owner.workspaceId,
    uid: projectUid,
    name: "Payments API",
  });
  const { db } = server.services;
  const project = await db.project.findUniqueOrThrow({ where: { uid: projectUid } });
  const { report } = sampleInput();
  const base = {
    workspaceId: owner.workspaceId,
    projectId: project.id,
    snapshotId: "none",
    engine: "agent",
    scope: JSON.stringify({ kind: "project" }),
    budget: "{}",
    settings: "{}",
  };
  reviewUid = crypto.randomUUID();
  queuedUid = crypto.randomUUID();
  await db.review.create({
    data: {
      ...base,
      uid: reviewUid,
      status: "completed",
      report: JSON.stringify(report),
      scoreOverall: report.overallScore,
      findingsCount: 3,
      finishedAt: new Date(),
    },
  });
  await db.review.create({ data: { ...base, uid: queuedUid, status: "queued" } });
  await db.findingDismissal.create({
    data: { projectId: project.id, fingerprint: "fp-aws", title: "AWS access key in source" },
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const get = (uid: string, format: string, cookie = owner.client.cookie) =>
  fetch(`${server.url}/api/reviews/${uid}/export?format=${format}`, { headers: cookie ? { cookie } : {} });

describe("GET /api/reviews/<uid>/export", () => {
  it("downloads SARIF as an attachment, with the false positive suppressed", async () => {
    const res = await get(reviewUid, "sarif");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/sarif+json; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="argus-payments-api-${reviewUid.slice(0, 8)}.sarif"; filename*=UTF-8''argus-payments-api-${reviewUid.slice(0, 8)}.sarif`,
    );
    const log = await res.json();
    expect(log.runs[0].tool.driver.name).toBe("Argus");
    expect(log.runs[0].results).toHaveLength(3);
    expect(
      log.runs[0].results
        .filter((r: { suppressions?: unknown[] }) => r.suppressions)
        .map((r: { ruleId: string }) => r.ruleId),
    ).toEqual(["secrets/aws-access-key"]);
  });

  it("downloads Markdown and JSON", async () => {
    const md = await get(reviewUid, "md");
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await md.text()).toContain("# Argus review — Payments API");
    const json = await (await get(reviewUid, "json")).json();
    expect(json.review.project.name).toBe("Payments API");
    expect(json.report.findings.find((f: { fingerprint: string }) => f.fingerprint === "fp-aws").dismissed).toBe(true);
  });

  it("refuses a bad format (400), anonymous users (401), other workspaces (403), unknown reviews (404), unfinished reviews (409)", async () => {
    const bad = await get(reviewUid, "pdf");
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toBe("Choose an export format: ?format=md, sarif or json (got pdf).");
    expect((await get(reviewUid, "sarif", "")).status).toBe(401);
    const stranger = await signUpInNewWorkspace(server);
    expect((await get(reviewUid, "sarif", stranger.client.cookie)).status).toBe(403);
    expect((await get(crypto.randomUUID(), "sarif")).status).toBe(404);
    const queued = await get(queuedUid, "md");
    expect(queued.status).toBe(409);
    expect((await queued.json()).message).toContain("This review is queued");
  });

  it("answers 405 to other methods", async () => {
    const res = await fetch(`${server.url}/api/reviews/${reviewUid}/export?format=md`, {
      method: "POST",
      headers: { cookie: owner.client.cookie },
    });
    expect(res.status).toBe(405);
  });
});
