/**
 * Notifications from the team chat on the real server: @mentions of members (and of people who are
 * not), replies in a finding's thread, and the live push to the user's sockets.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createReviewRow } from "../../test/helpers/review-row.ts";
import { roomTeam } from "../../test/helpers/room-team.ts";
import { signUpInNewWorkspace, type TestServer, type TestUser } from "../../test/helpers/server.ts";
import { mentionToken } from "../shared/mentions.ts";
import type { NotificationPush } from "../shared/notifications.ts";
import { reviewRoom, type RoomName } from "../shared/rooms.ts";
import { recheckSockets } from "../realtime/socket.ts";

const team = roomTeam({ bea: ["Bea Member", "member"], max: ["Max Member", "member"] });
let server: TestServer;
let olga: TestUser;
let bea: TestUser;
let max: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  ({ server, owner: olga } = team);
  ({ bea, max } = team.users);
  stranger = await signUpInNewWorkspace(server, "Sid Stranger");
});

/** A socket of the user that records the notifications pushed to it. */
async function client(u: TestUser) {
  const c = await team.client(u);
  const pushes: NotificationPush[] = [];
  c.socket.on("notification", (p) => pushes.push(p));
  return Object.assign(c, { pushes });
}

async function reviewWith(fingerprints: string[] = []): Promise<{ room: RoomName<"review">; uid: string }> {
  const r = await createReviewRow(server.services.db, olga.workspaceId, {
    findings: fingerprints.map((fingerprint) => ({ fingerprint, title: `Finding ${fingerprint}` })),
  });
  return { room: reviewRoom(r.uid), uid: r.uid };
}

const inboxOf = (u: TestUser) =>
  server.services.db.notification.findMany({
    where: { userId: u.userId },
    orderBy: { createdAt: "asc" },
    select: { kind: true, text: true, link: true, actorId: true, workspaceId: true, readAt: true },
  });

const token = (u: TestUser, name: string) => mentionToken({ id: u.userId, name });

describe("@mentions in the chat", () => {
  it("a member mentioned is notified at once on every socket of theirs, with a link to the message at its seq", async () => {
    const { room, uid } = await reviewWith();
    const a = await client(olga);
    const [b1, b2] = [await client(bea), await client(bea)];
    await a.call("join", { room, afterSeq: 0 });

    const sent = await a.call("chat.send", { room, body: `${token(bea, "Bea")} please look at src/app.ts:3` });
    expect(sent.ok).toBe(true);
    const id = sent.ok ? sent.message.id : "";
    const seq = a.events.find((e) => e.type === "chat_message" && e.payload.id === id)?.seq;
    const link = `/reviews/${uid}?at=${seq}#chat-${id}`;

    // Not in the room, still told (a user's sockets share one user room): both tabs.
    for (const b of [b1, b2])
      await expect
        .poll(() => b.pushes)
        .toEqual([
          {
            unread: 1,
            notification: expect.objectContaining({
              kind: "mention",
              actor: { id: olga.userId, name: "Olga Owner" },
              workspace: expect.objectContaining({ id: olga.workspaceId }),
              text: expect.stringMatching(/^Olga Owner mentioned you in the review of p .+: @Bea Member please look/),
              link,
              read: false,
            }),
          },
        ]);
    expect(await inboxOf(bea)).toEqual([expect.objectContaining({ kind: "mention", link, actorId: olga.userId })]);
    expect(await inboxOf(olga)).toEqual([]);
  });

  it("the rights re-check leaves a socket its user room: it is not revoked and still gets what is for its user", async () => {
    const { room } = await reviewWith();
    const b = await client(bea);
    const revoked: unknown[] = [];
    b.socket.on("revoked", (r) => revoked.push(r));
    expect(await recheckSockets(server.io, server.services, { userId: bea.userId })).toEqual({
      disconnected: 0,
      revoked: 0,
    });
    const a = await client(olga);
    await a.call("chat.send", { room, body: `again ${token(bea, "Bea")}` });
    await expect.poll(() => b.pushes.length).toBe(1);
    expect(revoked).toEqual([]);
  });

  it("the token carries the member's real name, whatever the sender wrote", async () => {
    const { room } = await reviewWith();
    const a = await client(olga);
    const sent = await a.call("chat.send", { room, body: `ping ${token(max, "The Admin")}` });
    expect(sent).toMatchObject({ ok: true, message: { body: `ping ${token(max, "Max Member")}` } });
  });

  it("someone in another workspace, an unknown id or oneself: plain text, and nobody is notified", async () => {
    const { room } = await reviewWith();
    const a = await client(olga);
    const s = await client(stranger);
    const body = `${token(stranger, "Sid")} ${mentionToken({ id: "nobody_here", name: "Ghost" })} ${token(olga, "me")}`;
    const sent = await a.call("chat.send", { room, body });
    expect(sent).toMatchObject({ ok: true, message: { body: `@Sid @Ghost ${token(olga, "Olga Owner")}` } });
    await new Promise((r) => setTimeout(r, 200));
    expect(s.pushes).toEqual([]);
    expect(await inboxOf(stranger)).toEqual([]);
    expect(await inboxOf(olga)).toEqual([]);
  });

  it("an edit that adds a mention notifies the newly mentioned once; editing again does not notify again", async () => {
    const { room } = await reviewWith();
    const a = await client(olga);
    const sent = await a.call("chat.send", { room, body: "draft" });
    const id = sent.ok ? sent.message.id : "";
    const before = (await inboxOf(max)).length;
    expect(await a.call("chat.edit", { room, id, body: `draft for ${token(max, "Max")}` })).toMatchObject({ ok: true });
    expect(await a.call("chat.edit", { room, id, body: `final for ${token(max, "Max")}` })).toMatchObject({ ok: true });
    const added = (await inboxOf(max)).slice(before);
    expect(added).toEqual([
      expect.objectContaining({ kind: "mention", text: expect.stringContaining("draft for @Max") }),
    ]);
  });

  it("a stranger's message is refused before anything is written, so it notifies nobody", async () => {
    const { room } = await reviewWith();
    const s = await client(stranger);
    const before = (await inboxOf(bea)).length;
    expect(await s.call("chat.send", { room, body: `hi ${token(bea, "Bea")}` })).toEqual({
      ok: false,
      code: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect(await inboxOf(bea)).toHaveLength(before);
  });
});

describe("replies in a finding's thread", () => {
  it("tell everyone who wrote in the thread before, but never the author; a mentioned writer gets the mention only", async () => {
    const { room } = await reviewWith(["fp-1"]);
    const [a, b, m] = [await client(olga), await client(bea), await client(max)];
    await b.call("chat.send", { room, thread: "fp-1", body: "I think it is real" });
    await m.call("chat.send", { room, thread: "fp-1", body: "agreed" });
    const counts = async () => {
      const [b, m, o] = await Promise.all([bea, max, olga].map(async (u) => (await inboxOf(u)).length));
      return [b!, m!, o!] as const;
    };
    const [b0, m0, o0] = await counts();

    // Olga replies (mentioning Max): Bea gets a thread reply, Max the mention, Olga nothing.
    const sent = await a.call("chat.send", { room, thread: "fp-1", body: `fixed now, ${token(max, "Max")}` });
    expect(sent.ok).toBe(true);
    const newOf = async (u: TestUser, from: number) => (await inboxOf(u)).slice(from);
    expect(await newOf(bea, b0)).toEqual([
      expect.objectContaining({
        kind: "thread_reply",
        text: expect.stringMatching(
          /^Olga Owner replied in the thread on “Finding fp-1” in the review of p .*: fixed now, @Max Member$/,
        ),
        link: expect.stringMatching(/\?at=\d+&finding=fp-1#chat-/),
      }),
    ]);
    expect(await newOf(max, m0)).toEqual([expect.objectContaining({ kind: "mention" })]);
    expect(await newOf(olga, o0)).toEqual([]);
    await expect.poll(() => b.pushes.map((p) => p.notification.kind)).toContain("thread_reply");

    // Bea replies too: Olga and Max wrote before her, she did as well but is the author.
    const [b1, m1, o1] = await counts();
    await b.call("chat.send", { room, thread: "fp-1", body: "thanks" });
    expect((await newOf(olga, o1)).map((n) => n.kind)).toEqual(["thread_reply"]);
    expect((await newOf(max, m1)).map((n) => n.kind)).toEqual(["thread_reply"]);
    expect(await newOf(bea, b1)).toEqual([]);
  });

  it("a member who wrote in the thread and has since left the workspace is not told", async () => {
    const { room } = await reviewWith(["fp-2"]);
    const leaver = await team.teammate("Lea Leaver", "member");
    const l = await client(leaver);
    await l.call("chat.send", { room, thread: "fp-2", body: "first" });
    await server.services.db.membership.delete({
      where: { workspaceId_userId: { workspaceId: olga.workspaceId, userId: leaver.userId } },
    });
    const a = await client(olga);
    expect(await a.call("chat.send", { room, thread: "fp-2", body: "second" })).toMatchObject({ ok: true });
    expect(await inboxOf(leaver)).toEqual([]);
  });
});
