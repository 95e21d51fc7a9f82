/** Presence over the room protocol on the real server. */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import type { PresentMember } from "../shared/room-presence.ts";
import { reviewRoom, type RoomName } from "../shared/rooms.ts";
import { recheckSockets } from "./socket.ts";

const team = roomTeam({ bea: ["Bea Member", "member"] });
let server: TestServer;
let owner: TestUser;
let bea: TestUser;
beforeAll(
  () =>
    void ({
      server,
      owner,
      users: { bea },
    } = team),
);

/** A client that records the latest presence of each room it hears about. */
async function client(u: TestUser) {
  const c = await team.client(u);
  const latest = new Map<string, PresentMember[]>();
  c.socket.on("presence", ({ room, members }) => latest.set(room, members));
  const names = (room: string) => (latest.get(room) ?? []).map((m) => m.name).sort();
  return Object.assign(c, { latest, names });
}

const newRoom = async (): Promise<RoomName<"review">> =>
  reviewRoom((await createReviewRow(server.services.db, owner.workspaceId)).uid);

describe("presence", () => {
  it("lists who is in the room; a user leaves when their last socket does", async () => {
    const room = await newRoom();
    const a = await client(owner);
    const b1 = await client(bea);
    const b2 = await client(bea);
    await a.call("join", { room, afterSeq: 0 });
    await expect.poll(() => a.names(room)).toEqual(["Olga Owner"]);
    await b1.call("join", { room, afterSeq: 0 });
    await b2.call("join", { room, afterSeq: 0 });
    await expect.poll(() => a.names(room)).toEqual(["Bea Member", "Olga Owner"]);
    expect(b1.names(room)).toEqual(["Bea Member", "Olga Owner"]);
    // One of Bea's two sockets leaves: she is still there (one entry, not two).
    b1.socket.emit("leave", { room });
    await new Promise((r) => setTimeout(r, 150));
    expect(a.names(room)).toEqual(["Bea Member", "Olga Owner"]);
    // Her last socket goes away (a disconnect, not a leave): she is gone.
    b2.close();
    await expect.poll(() => a.names(room)).toEqual(["Olga Owner"]);
  });

  it("says what each looks at; refuses a position in a room not joined, a malformed one, or a stranger's", async () => {
    const room = await newRoom();
    const a = await client(owner);
    const b = await client(bea);
    expect(await a.call("presence.update", { room, focus: { kind: "activity" } })).toEqual({
      ok: false,
      code: "invalid",
      message: "Join the room first, then say what you look at.",
    });
    await a.call("join", { room, afterSeq: 0 });
    await b.call("join", { room, afterSeq: 0 });
    expect(await a.call("presence.update", { room, focus: { kind: "file", path: "src/app.ts", line: 12 } })).toEqual({
      ok: true,
    });
    await expect
      .poll(() => b.latest.get(room)?.find((m) => m.userId === owner.userId)?.focus)
      .toEqual({ kind: "file", path: "src/app.ts", line: 12 });
    await a.call("presence.update", { room, focus: { kind: "finding", fingerprint: "fp-1" } });
    await expect
      .poll(() => b.latest.get(room)?.find((m) => m.userId === owner.userId)?.focus)
      .toEqual({ kind: "finding", fingerprint: "fp-1" });
    expect(
      await a.call("presence.update", { room, focus: { kind: "file", path: "", line: 0 } } as never),
    ).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/^The presence.update message was not understood: focus\.path/),
    });
    const stranger = await client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await stranger.call("presence.update", { room, focus: null })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    // Hiding one's position: focus null.
    await a.call("presence.update", { room, focus: null });
    await expect.poll(() => b.latest.get(room)?.find((m) => m.userId === owner.userId)?.focus).toBeNull();
  });

  it("hide my position: kept on the server for every device; no other socket ever receives the focus", async () => {
    const room = await newRoom();
    const hider = await signUpInNewWorkspace(server, "Hana Hider");
    await server.services.db.membership.create({
      data: { workspaceId: owner.workspaceId, userId: hider.userId, role: "viewer" },
    });
    const a = await client(owner);
    // Every presence message Olga's socket gets, to check that none ever carried Hana's focus.
    const heard: PresentMember[][] = [];
    a.socket.on("presence", ({ members }) => heard.push(members));
    const hanasFocus = () => heard.flatMap((ms) => ms.filter((m) => m.userId === hider.userId && m.focus !== null));
    const h = await client(hider);
    for (const c of [a, h]) await c.call("join", { room, afterSeq: 0 });

    // She looks at a file, then hides her position: the focus goes at once.
    expect(await hider.client.ok("query", "account.preferences")).toEqual({ hidePosition: false });
    await h.call("presence.update", { room, focus: { kind: "file", path: "src/secret-plan.ts", line: 3 } });
    await expect.poll(() => hanasFocus().length).toBe(1);
    expect(await hider.client.ok("mutate", "account.setPreferences", { hidePosition: true })).toEqual({
      hidePosition: true,
    });
    await expect
      .poll(() => a.latest.get(room)?.find((m) => m.userId === hider.userId))
      .toEqual({
        userId: hider.userId,
        name: "Hana Hider",
        focus: null,
      });
    const before = hanasFocus().length;

    // Whatever her browser says from now on — this tab or another device — the server keeps it.
    const other = await client(hider);
    await other.call("join", { room, afterSeq: 0 });
    expect(await other.call("presence.update", { room, focus: { kind: "finding", fingerprint: "fp-9" } })).toEqual({
      ok: true,
    });
    expect(await h.call("presence.update", { room, focus: { kind: "activity" } })).toEqual({ ok: true });
    expect(await hider.client.ok("query", "account.preferences")).toEqual({ hidePosition: true });
    // Olga still sees her avatar, with no focus.
    await new Promise((r) => setTimeout(r, 200));
    expect(a.names(room)).toEqual(["Hana Hider", "Olga Owner"]);
    expect(hanasFocus()).toHaveLength(before);
    // A newcomer's first presence message (the room's state as stored) has no focus of hers either.
    const late = await client(bea);
    await late.call("join", { room, afterSeq: 0 });
    await expect.poll(() => late.names(room)).toEqual(["Bea Member", "Hana Hider", "Olga Owner"]);
    expect(late.latest.get(room)?.find((m) => m.userId === hider.userId)?.focus).toBeNull();

    // Showing it again: the next position is shared.
    await hider.client.ok("mutate", "account.setPreferences", { hidePosition: false });
    await h.call("presence.update", { room, focus: { kind: "file", path: "src/app.ts" } });
    await expect
      .poll(() => a.latest.get(room)?.find((m) => m.userId === hider.userId)?.focus)
      .toEqual({ kind: "file", path: "src/app.ts" });
  });

  it("a preference is the user's own: bad input is refused and nobody else's changes", async () => {
    const r = await bea.client.mutate("account.setPreferences", { hidePosition: "yes" });
    expect(r.status).toBe(400);
    expect(r.error?.message).toMatch(/hidePosition/);
    const extra = await bea.client.mutate("account.setPreferences", { hidePosition: true, userId: owner.userId });
    expect(extra.status).toBe(400);
    expect(await owner.client.ok("query", "account.preferences")).toEqual({ hidePosition: false });
    expect(await bea.client.ok("query", "account.preferences")).toEqual({ hidePosition: false });
  });

  it("a user whose right to the room was revoked leaves its presence", async () => {
    const room = await newRoom();
    const gone = await signUpInNewWorkspace(server, "Gone Soon");
    await server.services.db.membership.create({
      data: { workspaceId: owner.workspaceId, userId: gone.userId, role: "viewer" },
    });
    const a = await client(owner);
    const g = await client(gone);
    await a.call("join", { room, afterSeq: 0 });
    await g.call("join", { room, afterSeq: 0 });
    await expect.poll(() => a.names(room)).toEqual(["Gone Soon", "Olga Owner"]);
    await server.services.db.membership.delete({
      where: { workspaceId_userId: { workspaceId: owner.workspaceId, userId: gone.userId } },
    });
    await recheckSockets(server.io, server.services);
    await expect.poll(() => a.names(room)).toEqual(["Olga Owner"]);
  });
});
