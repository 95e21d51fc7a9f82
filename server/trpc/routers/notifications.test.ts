/** The inbox over tRPC on the real server: paging, unread count, marking read — each user's own only. */
import { describe, expect, it } from "vitest";
import { Client, signUpInNewWorkspace, type TestUser } from "../../../test/helpers/server.ts";
import type { NotificationView } from "../../shared/notifications.ts";
import { startServerWithTeam } from "./test-support.ts";

const { server, owner, member, viewer } = await startServerWithTeam();
const { db } = server.services;

interface Page {
  items: NotificationView[];
  nextCursor: string | null;
}

/** Writes n notifications for the user, oldest first, one second apart (ids returned newest first). */
async function give(u: TestUser, n: number, opts: { workspaceId?: string; text?: string } = {}): Promise<string[]> {
  const ids: string[] = [];
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < n; i++) {
    const uid = crypto.randomUUID();
    await db.notification.create({
      data: {
        uid,
        userId: u.userId,
        workspaceId: opts.workspaceId ?? owner.workspaceId,
        kind: "mention",
        actorId: owner.userId,
        text: `${opts.text ?? "note"} ${i}`,
        link: `/reviews/x?at=${i}`,
        subject: `message:${uid}`,
        createdAt: new Date(t0 + i * 1000),
      },
    });
    ids.unshift(uid);
  }
  return ids;
}

const unread = async (u: TestUser) =>
  (await u.client.ok<{ count: number }>("query", "notifications.unreadCount")).count;

describe("notifications router", () => {
  it("lists the caller's notifications newest first, paged by cursor, with who did it and where", async () => {
    const ids = await give(member, 5);
    const first = await member.client.ok<Page>("query", "notifications.list", { limit: 2 });
    expect(first.items.map((n) => n.id)).toEqual(ids.slice(0, 2));
    expect(first.items[0]).toMatchObject({
      kind: "mention",
      actor: { id: owner.userId, name: "Olivia" },
      workspace: { id: owner.workspaceId },
      text: "note 4",
      link: "/reviews/x?at=4",
      read: false,
    });
    const second = await member.client.ok<Page>("query", "notifications.list", { limit: 2, cursor: first.nextCursor });
    expect(second.items.map((n) => n.id)).toEqual(ids.slice(2, 4));
    const last = await member.client.ok<Page>("query", "notifications.list", { limit: 2, cursor: second.nextCursor });
    expect(last).toMatchObject({ items: [{ id: ids[4] }], nextCursor: null });
    expect(await unread(member)).toBe(5);
  });

  it("marks some read, then all; the unread count follows and unreadOnly lists what is left", async () => {
    const ids = await give(viewer, 3);
    expect(await viewer.client.ok("mutate", "notifications.markRead", { ids: [ids[0]] })).toEqual({
      updated: 1,
      unread: 2,
    });
    // Marking again changes nothing and is no error.
    expect(await viewer.client.ok("mutate", "notifications.markRead", { ids: [ids[0]] })).toEqual({
      updated: 0,
      unread: 2,
    });
    const left = await viewer.client.ok<Page>("query", "notifications.list", { unreadOnly: true });
    expect(left.items.map((n) => n.id)).toEqual(ids.slice(1));
    expect(await viewer.client.ok("mutate", "notifications.markAllRead")).toEqual({ updated: 2, unread: 0 });
    const all = await viewer.client.ok<Page>("query", "notifications.list");
    expect(all.items.every((n) => n.read)).toBe(true);
  });

  it("another user's notification can be neither listed, paged from, nor marked — and nothing is half-marked", async () => {
    const theirs = await give(owner, 2, { text: "owner's secret" });
    const outsider = await signUpInNewWorkspace(server, "Oscar Outsider");
    for (const u of [member, outsider]) {
      const page = await u.client.ok<Page>("query", "notifications.list", { limit: 100 });
      expect(JSON.stringify(page)).not.toContain("owner's secret");
      const mark = await u.client.mutate("notifications.markRead", { ids: [theirs[0]] });
      expect(mark.status).toBe(404);
      expect(mark.error?.message).toBe("That notification is not in your inbox; load the inbox again.");
      const cursor = await u.client.query("notifications.list", { cursor: theirs[0] });
      expect(cursor.status).toBe(404);
    }
    // One of one's own and one of another's: refused whole.
    const mine = await give(member, 1);
    const mixed = await member.client.mutate("notifications.markRead", { ids: [mine[0], theirs[1]] });
    expect(mixed.status).toBe(404);
    expect(mixed.error?.message).toMatch(/nothing was marked/);
    expect((await db.notification.findUniqueOrThrow({ where: { uid: mine[0]! } })).readAt).toBeNull();
    // markAllRead is about the caller only.
    await outsider.client.ok("mutate", "notifications.markAllRead");
    await member.client.ok("mutate", "notifications.markAllRead");
    expect(await unread(owner)).toBeGreaterThanOrEqual(2);
    expect(
      await db.notification.count({ where: { uid: { in: theirs }, readAt: { not: null } } }),
      "the owner's notifications stay unread",
    ).toBe(0);
  });

  it("a workspace the user left: its notifications leave the inbox and the count", async () => {
    const other = await signUpInNewWorkspace(server, "Wanda Elsewhere");
    await db.membership.create({ data: { workspaceId: other.workspaceId, userId: member.userId, role: "member" } });
    const before = await unread(member);
    await give(member, 2, { workspaceId: other.workspaceId, text: "elsewhere" });
    expect(await unread(member)).toBe(before + 2);
    await db.membership.delete({
      where: { workspaceId_userId: { workspaceId: other.workspaceId, userId: member.userId } },
    });
    expect(await unread(member)).toBe(before);
    const page = await member.client.ok<Page>("query", "notifications.list", { limit: 100 });
    expect(page.items.some((n) => n.text.startsWith("elsewhere"))).toBe(false);
  });

  it("bad input says what was wrong; signed out is 401", async () => {
    const r = await member.client.mutate("notifications.markRead", { ids: [] });
    expect(r.status).toBe(400);
    expect(r.error?.message).toBe("ids: name at least one notification");
    const bad = await member.client.mutate("notifications.markRead", { ids: ["not-a-uuid"] });
    expect(bad.error?.message).toBe("ids.0: a notification id is a UUID from the inbox");
    const anon = await new Client(server.url).query("notifications.unreadCount");
    expect(anon.status).toBe(401);
  });
});
