/** Votes and resolve on a review's findings over the room protocol, and the dismissals they feed. */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { kbRoom, reviewRoom } from "../shared/rooms.ts";

const team = roomTeam({ bea: ["Bea Member", "member"], vic: ["Vic Viewer", "viewer"] });
let server: TestServer;
let owner: TestUser;
let bea: TestUser;
let vic: TestUser;
beforeAll(
  () =>
    void ({
      server,
      owner,
      users: { bea, vic },
    } = team),
);

const client = team.client;

async function review(fps = ["fp-a", "fp-b"]) {
  const r = await createReviewRow(server.services.db, owner.workspaceId, {
    findings: fps.map((fingerprint) => ({ fingerprint })),
  });
  return { ...r, room: reviewRoom(r.uid) };
}

const findings = (u: TestUser, reviewUid: string) =>
  u.client.ok<
    {
      fingerprint: string;
      dismissed: boolean;
      votes: { name: string; verdict: string }[];
      threadCount: number;
      resolvedAt: string | null;
    }[]
  >("query", "reviews.findings", { reviewUid });
const dismissal = (projectId: string, fingerprint: string) =>
  server.services.db.findingDismissal.findUnique({ where: { projectId_fingerprint: { projectId, fingerprint } } });

describe("finding votes", () => {
  it("votes reach the room; a false-positive verdict joins the project's dismissals and leaves them when the votes change", async () => {
    const r = await review();
    const [a, b] = [await client(owner), await client(bea)];
    await b.call("join", { room: r.room, afterSeq: 0 });
    expect(
      await a.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: "false_positive" }),
    ).toMatchObject({
      ok: true,
      votes: [{ userId: owner.userId, name: "Olga Owner", verdict: "false_positive", duplicateOf: null }],
    });
    await expect
      .poll(() =>
        b.events.filter((e) => e.type === "finding_votes" || e.type === "finding_dismissed").map((e) => e.type),
      )
      .toEqual(["finding_votes", "finding_dismissed"]);
    expect(await dismissal(r.projectId, "fp-a")).toMatchObject({ source: "vote", createdById: owner.userId });
    expect((await findings(owner, r.uid)).find((f) => f.fingerprint === "fp-a")).toMatchObject({
      dismissed: true,
      votes: [{ name: "Olga Owner", verdict: "false_positive" }],
    });

    // A second member says real: a tie is no verdict, so the dismissal goes (undo restores it).
    await b.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: "real" });
    expect(await dismissal(r.projectId, "fp-a")).toBeNull();
    await expect.poll(() => b.events.some((e) => e.type === "finding_restored")).toBe(true);
    // Taking a vote back: only Bea's real remains.
    expect(await a.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: null })).toMatchObject({
      votes: [{ name: "Bea Member", verdict: "real" }],
    });
  });

  it("a dismissal made by hand stays whatever the votes say", async () => {
    const r = await review();
    await owner.client.ok("mutate", "reviews.dismiss", { reviewUid: r.uid, fingerprint: "fp-b" });
    const a = await client(owner);
    await a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "real" });
    expect(await dismissal(r.projectId, "fp-b")).toMatchObject({ source: "manual" });
  });

  it("duplicate of names another finding of this review; bad votes are refused and change nothing", async () => {
    const r = await review();
    const other = await review(["fp-elsewhere"]);
    const a = await client(owner);
    expect(
      await a.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: "duplicate", duplicateOf: "fp-b" }),
    ).toMatchObject({
      ok: true,
      votes: [{ verdict: "duplicate", duplicateOf: "fp-b" }],
    });
    const refusals = await Promise.all([
      a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "duplicate" }),
      a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "real", duplicateOf: "fp-a" }),
      a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "duplicate", duplicateOf: "fp-b" }),
      a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "duplicate", duplicateOf: "fp-elsewhere" }),
      a.call("finding.vote", { room: r.room, fingerprint: "fp-elsewhere", verdict: "real" }),
      a.call("finding.vote", { room: r.room, fingerprint: "fp-b", verdict: "maybe" } as never),
    ]);
    expect(refusals.map((x) => (x.ok ? "applied" : x.message))).toEqual([
      "The finding.vote message was not understood: duplicateOf: name the finding it duplicates (duplicateOf) with the verdict duplicate, and only then",
      "The finding.vote message was not understood: duplicateOf: name the finding it duplicates (duplicateOf) with the verdict duplicate, and only then",
      "A finding cannot duplicate itself.",
      "The finding it duplicates is not part of this review.",
      "That finding is not part of this review.",
      expect.stringMatching(/^The finding.vote message was not understood: verdict: /),
    ]);
    expect(await server.services.db.findingVote.count({ where: { reviewId: r.id, fingerprint: "fp-b" } })).toBe(0);
    expect(await server.services.db.findingVote.count({ where: { reviewId: other.id } })).toBe(0);
  });

  it("viewers and strangers cannot vote or resolve; votes belong to review rooms", async () => {
    const r = await review();
    const v = await client(vic);
    expect(await v.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: "real" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are a read-only viewer in this workspace; only a member or owner can make changes here.",
    });
    expect(await v.call("finding.resolve", { room: r.room, fingerprint: "fp-a", resolved: true })).toMatchObject({
      ok: false,
    });
    const s = await client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await s.call("finding.vote", { room: r.room, fingerprint: "fp-a", verdict: "real" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    const kbUid = crypto.randomUUID();
    await server.services.db.knowledgeBase.create({
      data: { uid: kbUid, workspaceId: owner.workspaceId, name: `kb ${kbUid.slice(0, 6)}`, chunking: "{}" },
    });
    const a = await client(owner);
    expect(await a.call("finding.vote", { room: kbRoom(kbUid), fingerprint: "fp-a", verdict: "real" })).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/Only a review's findings take votes/),
    });
    expect(await server.services.db.findingVote.count({ where: { reviewId: r.id } })).toBe(0);
  });

  it("resolve and reopen a finding; its thread's size is counted", async () => {
    const r = await review();
    const [a, b] = [await client(owner), await client(bea)];
    await b.call("join", { room: r.room, afterSeq: 0 });
    expect(await a.call("finding.resolve", { room: r.room, fingerprint: "fp-a", resolved: true })).toEqual({
      ok: true,
    });
    expect((await findings(owner, r.uid)).find((f) => f.fingerprint === "fp-a")?.resolvedAt).toEqual(
      expect.any(String),
    );
    await a.call("finding.resolve", { room: r.room, fingerprint: "fp-a", resolved: false });
    expect((await findings(owner, r.uid)).find((f) => f.fingerprint === "fp-a")?.resolvedAt).toBeNull();
    await expect
      .poll(() => b.events.flatMap((e) => (e.type === "finding_resolved" ? [e.payload.resolved] : [])))
      .toEqual([true, false]);

    await a.call("chat.send", { room: r.room, body: "is this real?", thread: "fp-a" });
    await b.call("chat.send", { room: r.room, body: "yes", thread: "fp-a" });
    expect((await findings(owner, r.uid)).find((f) => f.fingerprint === "fp-a")?.threadCount).toBe(2);
    await expect
      .poll(() => b.events.flatMap((e) => (e.type === "thread_count" ? [e.payload.count] : [])))
      .toEqual([1, 2]);
  });
});
