/** Reactions to chat messages over the room protocol on the real server. */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import type { RoomClient } from "../../test/helpers/room-client.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import type { MessageReactions } from "../shared/room-reactions.ts";
import { projectRoom, reviewRoom, type RoomName } from "../shared/rooms.ts";

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

async function roomWithMessage(author: RoomClient): Promise<{ room: RoomName<"review">; id: string; project: string }> {
  const r = await createReviewRow(server.services.db, owner.workspaceId);
  const room = reviewRoom(r.uid);
  const sent = await author.call("chat.send", { room, body: "Shall we ship it?" });
  if (!sent.ok) throw new Error(sent.message);
  return { room, id: sent.message.id, project: projectRoom(r.projectUid) };
}

/** The latest reactions event of a message a client has seen (the message's state). */
const latest = (c: RoomClient, id: string) =>
  c.events.flatMap((e) => (e.type === "chat_reactions" && e.payload.messageId === id ? [e.payload] : [])).at(-1)
    ?.reactions;

const who = (u: TestUser, name: string) => ({ id: u.userId, name });

describe("reactions", () => {
  it("toggle the sender's reaction; others see counts and who reacted live; a viewer may react", async () => {
    const [a, b, v] = [await client(owner), await client(bea), await client(vic)];
    const { room, id } = await roomWithMessage(a);
    for (const c of [a, b, v]) expect(await c.call("join", { room, afterSeq: 0 })).toMatchObject({ ok: true });

    expect(await b.call("chat.react", { room, id, emoji: "👍" })).toEqual({
      ok: true,
      reactions: [{ emoji: "👍", users: [who(bea, "Bea Member")] }],
    });
    expect(await v.call("chat.react", { room, id, emoji: "👍" })).toMatchObject({ ok: true });
    expect(await v.call("chat.react", { room, id, emoji: "🚀" })).toMatchObject({ ok: true });
    await expect
      .poll(() => latest(a, id))
      .toEqual([
        { emoji: "👍", users: [who(bea, "Bea Member"), who(vic, "Vic Viewer")] },
        { emoji: "🚀", users: [who(vic, "Vic Viewer")] },
      ]);

    // The same toggle again takes it back.
    expect(await b.call("chat.react", { room, id, emoji: "👍" })).toEqual({
      ok: true,
      reactions: [
        { emoji: "👍", users: [who(vic, "Vic Viewer")] },
        { emoji: "🚀", users: [who(vic, "Vic Viewer")] },
      ],
    });
    await expect.poll(() => latest(a, id)?.[0]?.users).toEqual([who(vic, "Vic Viewer")]);
    expect(await server.services.db.roomMessageReaction.count()).toBeGreaterThanOrEqual(2);
  });

  it("a late joiner sees them in the log, and chat pages carry them", async () => {
    const a = await client(owner);
    const { room, id } = await roomWithMessage(a);
    await a.call("chat.react", { room, id, emoji: "🎉" });
    const late = await client(bea);
    const joined = await late.call("join", { room, afterSeq: 0 });
    expect(joined.ok && joined.events.filter((e) => e.type === "chat_reactions").at(-1)?.payload).toEqual({
      messageId: id,
      reactions: [{ emoji: "🎉", users: [who(owner, "Olga Owner")] }],
    });
    const page = await late.call("chat.page", { room });
    expect(page.ok && page.reactions).toEqual([
      { messageId: id, reactions: [{ emoji: "🎉", users: [who(owner, "Olga Owner")] }] },
    ] satisfies MessageReactions[]);
  });

  it("one per user, message and emoji: concurrent toggles of the same emoji leave at most one row", async () => {
    const a = await client(owner);
    const { room, id } = await roomWithMessage(a);
    const message = await server.services.db.roomMessage.findUniqueOrThrow({ where: { uid: id } });
    await server.services.db.roomMessageReaction.create({
      data: { messageId: message.id, userId: owner.userId, emoji: "👀" },
    });
    // The database refuses a second copy whatever the service does.
    await expect(
      server.services.db.roomMessageReaction.create({
        data: { messageId: message.id, userId: owner.userId, emoji: "👀" },
      }),
    ).rejects.toThrow();
    const replies = await Promise.all(Array.from({ length: 4 }, () => a.call("chat.react", { room, id, emoji: "😄" })));
    expect(replies.every((r) => r.ok)).toBe(true);
    const rows = await server.services.db.roomMessageReaction.findMany({ where: { messageId: message.id } });
    expect(rows.filter((r) => r.emoji === "😄").length).toBeLessThanOrEqual(1);
    expect(rows.filter((r) => r.emoji === "👀")).toHaveLength(1);
    // The last event published is the state in the table (4 toggles: off again).
    await a.call("join", { room, afterSeq: 0 });
    const log = await server.services.events.history(room);
    const last = log.filter((e) => e.type === "chat_reactions").at(-1);
    expect(last?.payload).toEqual({ messageId: id, reactions: [{ emoji: "👀", users: [who(owner, "Olga Owner")] }] });
  });

  it("refuses a message of another room, a deleted message, an emoji outside the set, and a stranger", async () => {
    const a = await client(owner);
    const { room, id, project } = await roomWithMessage(a);
    // The message is in the review's room; the project's room (same workspace) does not have it.
    expect(await a.call("chat.react", { room: project, id, emoji: "👍" })).toEqual({
      ok: false,
      code: "not_found",
      message: "That message is not in this room (it may have been deleted).",
    });
    expect(await a.call("chat.react", { room, id, emoji: "💩" } as never)).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/^The chat.react message was not understood: emoji: a reaction is one of 👍/),
    });
    const stranger = await client(await signUpInNewWorkspace(server, "Stranger"));
    expect(await stranger.call("chat.react", { room, id, emoji: "👍" })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    await a.call("chat.delete", { room, id });
    expect(await a.call("chat.react", { room, id, emoji: "👍" })).toEqual({
      ok: false,
      code: "not_found",
      message: "That message was deleted; there is nothing to react to.",
    });
    const message = await server.services.db.roomMessage.findUniqueOrThrow({ where: { uid: id } });
    expect(await server.services.db.roomMessageReaction.count({ where: { messageId: message.id } })).toBe(0);
    expect((await server.services.events.history(room)).filter((e) => e.type === "chat_reactions")).toEqual([]);
  });
});
