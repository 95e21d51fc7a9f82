/**
 * Share links through the real API: who may make, list and revoke them, how long they last, that
 * only a hash of the token is stored, and that a link opens its own review and nothing else.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import {
  Client,
  inviteAndSignUp,
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../test/helpers/server.ts";
import { MAX_ACTIVE_SHARES } from "./service.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let anonymous: Client;

interface Created {
  uid: string;
  token: string;
  expiresAt: string;
}
interface Listed {
  uid: string;
  expiresAt: string;
  createdBy: string;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url, { name: "Olga Owner" });
  member = await inviteAndSignUp(owner, "member", "Max Member");
  viewer = await inviteAndSignUp(owner, "viewer", "Vic Viewer");
  stranger = await signUpInNewWorkspace(server, "Stranger");
  anonymous = new Client(server.url);
});
afterAll(async () => {
  await server?.stop();
});

const review = (opts: Parameters<typeof createReviewRow>[2] = {}) =>
  createReviewRow(server.services.db, owner.workspaceId, opts);
const share = (u: TestUser, reviewUid: string, lifetime?: string) =>
  u.client.ok<Created>("mutate", "shares.create", { reviewUid, ...(lifetime ? { lifetime } : {}) });

describe("making a share link", () => {
  it("a member makes one: the token comes back once; the database holds only its sha256", async () => {
    const r = await review();
    const made = await share(member, r.uid);
    expect(made.token).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const row = await server.services.db.reviewShare.findUniqueOrThrow({ where: { uid: made.uid } });
    expect(row.tokenHash).toBe(createHash("sha256").update(made.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(made.token);

    const listed = await member.client.ok<Listed[]>("query", "shares.list", { reviewUid: r.uid });
    expect(listed).toEqual([expect.objectContaining({ uid: made.uid, createdBy: "Max Member" })]);
    expect(JSON.stringify(listed)).not.toContain(made.token);
  });

  it("lasts 1, 7 (the default) or 30 days; any other lifetime is refused saying the choices", async () => {
    const r = await review();
    for (const [lifetime, days] of [
      ["1d", 1],
      [undefined, 7],
      ["30d", 30],
    ] as const) {
      const before = Date.now();
      const made = await share(owner, r.uid, lifetime);
      const ms = new Date(made.expiresAt).getTime() - before;
      expect(Math.abs(ms - days * 86_400_000), `${lifetime}`).toBeLessThan(60_000);
    }
    const bad = await owner.client.mutate("shares.create", { reviewUid: r.uid, lifetime: "forever" });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toMatch(/1d, 7d or 30d/);
  });

  it("viewers, strangers and anonymous callers may not make, list or revoke links", async () => {
    const r = await review();
    const made = await share(member, r.uid);
    for (const [who, status] of [
      [viewer.client, 403],
      [stranger.client, 403],
      [anonymous, 401],
    ] as const) {
      expect((await who.mutate("shares.create", { reviewUid: r.uid })).status).toBe(status);
      expect((await who.query("shares.list", { reviewUid: r.uid })).status).toBe(status);
      expect((await who.mutate("shares.revoke", { uid: made.uid })).status).toBe(status);
    }
    expect(await server.services.db.reviewShare.count({ where: { review: { uid: r.uid } } })).toBe(1);
    // The link still works: the refused revokes changed nothing.
    expect((await anonymous.query("shares.review", { token: made.token })).status).toBe(200);
  });

  it("a review has at most MAX_ACTIVE_SHARES working links; revoking one makes room", async () => {
    const r = await review();
    const made: Created[] = [];
    for (let i = 0; i < MAX_ACTIVE_SHARES; i++) made.push(await share(member, r.uid));
    const refused = await member.client.mutate("shares.create", { reviewUid: r.uid });
    expect(refused.status).toBe(409);
    expect(refused.error?.message).toMatch(/Revoke one/);
    await member.client.ok("mutate", "shares.revoke", { uid: made[0]!.uid });
    await share(member, r.uid);
  });

  it("a review that does not exist: 404", async () => {
    const r = await member.client.mutate("shares.create", { reviewUid: crypto.randomUUID() });
    expect(r.status).toBe(404);
  });
});

describe("opening a share link", () => {
  it("shows its review, findings and log to anyone — no ids leading elsewhere, no emails", async () => {
    const r = await review({ findings: [{ fingerprint: "fp-1", title: "Shared finding" }] });
    const made = await share(member, r.uid);
    const shown = await anonymous.ok<Record<string, unknown>>("query", "shares.review", { token: made.token });
    expect(shown).toMatchObject({ uid: r.uid, status: "completed" });
    for (const hidden of ["projectUid", "snapshotUid", "budget", "settings"]) expect(shown).not.toHaveProperty(hidden);
    const findings = await anonymous.ok<{ fingerprint: string; votes: unknown[]; threadCount: number }[]>(
      "query",
      "shares.findings",
      { token: made.token },
    );
    expect(findings).toEqual([expect.objectContaining({ fingerprint: "fp-1", votes: [], threadCount: 0 })]);
    const events = await anonymous.ok<unknown[]>("query", "shares.events", { token: made.token });
    expect(Array.isArray(events)).toBe(true);
    const all = JSON.stringify([shown, findings, events]);
    for (const u of [owner, member, viewer]) expect(all).not.toContain(u.email);
    expect(all).not.toContain(r.projectUid);
  });

  it("a token of review X opens X, never Y — not even another review of the same project", async () => {
    const x = await review({ findings: [{ fingerprint: "fp-x" }] });
    const db = server.services.db;
    // Y: a second review of X's project.
    const xRow = await db.review.findUniqueOrThrow({ where: { uid: x.uid } });
    const y = await db.review.create({
      data: {
        uid: crypto.randomUUID(),
        workspaceId: owner.workspaceId,
        projectId: xRow.projectId,
        snapshotId: xRow.snapshotId,
        engine: "static",
        status: "completed",
        scope: JSON.stringify({ kind: "project" }),
        budget: "{}",
        settings: "{}",
      },
    });
    const toX = await share(member, x.uid);
    const toY = await share(member, y.uid);
    expect((await anonymous.ok<{ uid: string }>("query", "shares.review", { token: toX.token })).uid).toBe(x.uid);
    expect((await anonymous.ok<{ uid: string }>("query", "shares.review", { token: toY.token })).uid).toBe(y.uid);
    const findingsX = await anonymous.ok<{ fingerprint: string }[]>("query", "shares.findings", { token: toX.token });
    expect(findingsX.map((f) => f.fingerprint)).toEqual(["fp-x"]);
    // The procedures take nothing but the token: a review id alongside is dropped, not read.
    const smuggled = await anonymous.ok<{ uid: string }>("query", "shares.review", { token: toX.token, uid: y.uid });
    expect(smuggled.uid).toBe(x.uid);
  });

  it("a guessed token: 404; a revoked link: 403 saying so; an expired one: 403 with its date", async () => {
    const guessed = await anonymous.query("shares.review", { token: "A".repeat(32) });
    expect(guessed.status).toBe(404);
    expect(guessed.error?.message).toMatch(/not valid/);

    const r = await review();
    const revoked = await share(member, r.uid);
    await owner.client.ok("mutate", "shares.revoke", { uid: revoked.uid });
    const afterRevoke = await anonymous.query("shares.review", { token: revoked.token });
    expect(afterRevoke.status).toBe(403);
    expect(afterRevoke.error?.message).toMatch(/revoked/);
    // Revoking twice is fine; the revoked link is no longer listed.
    await member.client.ok("mutate", "shares.revoke", { uid: revoked.uid });
    const listed = await member.client.ok<Listed[]>("query", "shares.list", { reviewUid: r.uid });
    expect(listed.map((s) => s.uid)).not.toContain(revoked.uid);

    const expired = await share(member, r.uid, "1d");
    await server.services.db.reviewShare.update({
      where: { uid: expired.uid },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    for (const path of ["shares.review", "shares.findings", "shares.events"]) {
      const res = await anonymous.query(path, { token: expired.token });
      expect(res.status, path).toBe(403);
      expect(res.error?.message).toMatch(/expired on \d{4}-\d\d-\d\d/);
    }
    expect((await member.client.ok<Listed[]>("query", "shares.list", { reviewUid: r.uid })).length).toBe(0);
  });

  it("deleting the review ends its links", async () => {
    const r = await createReviewRow(server.services.db, owner.workspaceId);
    const made = await share(member, r.uid);
    await owner.client.ok("mutate", "reviews.remove", { uid: r.uid });
    expect((await anonymous.query("shares.review", { token: made.token })).status).toBe(404);
  });
});
