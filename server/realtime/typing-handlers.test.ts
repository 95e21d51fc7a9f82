/** Typing signals over the room protocol on the real server: who hears them, the pace, who may send. */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import type { ServerToClientEvents } from "../shared/room-protocol.ts";
import { TYPING_RATE_SIGNALS } from "../shared/room-typing.ts";
import { projectRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";

type TypingInfo = Parameters<ServerToClientEvents["typing"]>[0];

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

/** A client that records every typing signal it hears. */
async function client(u: TestUser) {
  const c = await team.client(u);
  const heard: TypingInfo[] = [];
  c.socket.on("typing", (t) => heard.push(t));
  return Object.assign(c, { heard });
}

async function reviewWithRoom(): Promise<{ room: RoomName<"review">; projectUid: string }> {
  const r = await createReviewRow(server.services.db, owner.workspaceId);
  return { room: reviewRoom(r.uid), projectUid: r.projectUid };
}

const settle = () => new Promise((r) => setTimeout(r, 200));

describe("typing", () => {
  it("reaches the room's other sockets, not the sender, and is not stored", async () => {
    const { room, projectUid } = await reviewWithRoom();
    const [a, b, v] = [await client(owner), await client(bea), await client(vic)];
    const outside = await client(bea); // Bea's second tab, in another room
    for (const c of [a, b, v]) expect(await c.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    expect(await outside.call("join", { room: projectRoom(projectUid), afterSeq: 0 })).toMatchObject({ ok: true });

    // A viewer may type too.
    expect(await v.call("chat.typing", { room })).toEqual({ ok: true });
    const signal = { room, thread: null, user: { id: vic.userId, name: "Vic Viewer" } };
    await expect.poll(() => a.heard).toEqual([signal]);
    await expect.poll(() => b.heard).toEqual([signal]);
    await settle();
    expect(v.heard).toEqual([]);
    expect(outside.heard).toEqual([]);

    // In a finding's thread: the thread is named, so only that thread's panel shows it.
    expect(await a.call("chat.typing", { room, thread: "fp-1" })).toEqual({ ok: true });
    await expect
      .poll(() => b.heard.at(-1))
      .toEqual({ room, thread: "fp-1", user: { id: owner.userId, name: "Olga Owner" } });

    // Nothing of it is in the room's log.
    expect(await server.services.events.history(room)).toEqual([]);
  });

  it("is refused before joining, in another workspace's room, with a thread outside a review, or malformed", async () => {
    const { room, projectUid } = await reviewWithRoom();
    const [a, b] = [await client(owner), await client(bea)];
    expect(await b.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });
    expect(await a.call("chat.typing", { room })).toEqual({
      ok: false,
      code: "invalid",
      message: "Join the room first; then the others see you typing.",
    });
    const stranger = await client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await stranger.call("chat.typing", { room })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    const project = projectRoom(projectUid);
    expect(await a.call("join", { room: project, afterSeq: 0 })).toMatchObject({ ok: true });
    expect(await a.call("chat.typing", { room: project, thread: "fp-1" })).toEqual({
      ok: false,
      code: "invalid",
      message: "Only a review's findings have threads; type in the room's chat.",
    });
    expect(await a.call("chat.typing", { room, thread: "" } as never)).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/^The chat.typing message was not understood: thread/),
    });
    await settle();
    expect(b.heard).toEqual([]);
  });

  it("is rate limited per user: past the limit the sender hears when to retry and nobody hears the signal", async () => {
    const { room } = await reviewWithRoom();
    const [a, b] = [await client(owner), await client(bea)];
    for (const c of [a, b]) await c.call("join", { room, afterSeq: 0 });
    for (let i = 0; i < TYPING_RATE_SIGNALS; i++) expect(await b.call("chat.typing", { room })).toEqual({ ok: true });
    const refused = await b.call("chat.typing", { room });
    expect(refused).toMatchObject({
      ok: false,
      code: "rate_limited",
      message: expect.stringMatching(/^Typing signals are coming too fast; the next one is accepted in \d s\.$/),
      retryAfterMs: expect.any(Number),
    });
    await expect.poll(() => a.heard.length).toBe(TYPING_RATE_SIGNALS);
    await settle();
    expect(a.heard).toHaveLength(TYPING_RATE_SIGNALS);
    // Another user's signals are counted on their own.
    expect(await a.call("chat.typing", { room })).toEqual({ ok: true });
  });
});
