/**
 * The member service against a real database, with two workspaces: every rule of creating,
 * switching, listing, re-roling, removing and leaving, and that a member of one workspace can do
 * nothing to the other's members by id. Users are written straight to the database (no sign-up).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import type { Actor } from "../auth/access.ts";
import type { Role } from "../auth/roles.ts";
import type { Db } from "../db/client.ts";
import { DomainError } from "../errors.ts";
import { createMemberService, type MemberService } from "./members.ts";
import { createMembershipChanges, type MembershipChange } from "./membership-changes.ts";

let db: Db;
let close: () => Promise<void>;
let members: MemberService;
const emitted: MembershipChange[] = [];
const listenerErrors: unknown[] = [];

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
  const changes = createMembershipChanges((err) => listenerErrors.push(err));
  changes.subscribe((c) => void emitted.push(c));
  members = createMemberService(db, changes);
});
afterAll(async () => {
  await close?.();
});
beforeEach(() => {
  emitted.length = 0;
});

async function user(name: string): Promise<NonNullable<Actor>> {
  const id = randomUUID();
  const email = `${name.toLowerCase().replace(/\W+/g, "-")}-${id.slice(0, 8)}@example.test`;
  await db.user.create({ data: { id, name, email } });
  return { userId: id, email, name };
}

async function workspace(name: string, people: [NonNullable<Actor>, Role][]): Promise<string> {
  const ws = await db.workspace.create({ data: { name } });
  for (const [p, role] of people) {
    await db.membership.create({ data: { workspaceId: ws.id, userId: p.userId, role } });
  }
  return ws.id;
}

const roleOf = async (workspaceId: string, userId: string) =>
  (await db.membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId } } }))?.role ?? null;

async function refusal(p: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return { kind: (err as DomainError).kind, message: (err as DomainError).message };
}

async function openInvite(workspaceId: string, by: NonNullable<Actor>, usedAt: Date | null = null) {
  return db.invite.create({
    data: {
      token: `t-${randomUUID()}`,
      workspaceId,
      role: "member",
      createdById: by.userId,
      expiresAt: new Date(Date.now() + 86_400_000),
      usedAt,
    },
  });
}

/** Two workspaces: A (ann owner, max member, vic viewer) and B (bea owner, bob member). */
async function twoWorkspaces() {
  const [ann, max, vic, bea, bob] = await Promise.all(["Ann", "Max", "Vic", "Bea", "Bob"].map(user));
  const a = await workspace("Alpha", [
    [ann!, "owner"],
    [max!, "member"],
    [vic!, "viewer"],
  ]);
  const b = await workspace("Beta", [
    [bea!, "owner"],
    [bob!, "member"],
  ]);
  return { a, b, ann: ann!, max: max!, vic: vic!, bea: bea!, bob: bob! };
}

describe("creating a workspace", () => {
  it("the creator owns it, it has the built-in prompts, and it becomes their current workspace", async () => {
    const { a, max } = await twoWorkspaces();
    const created = await members.create(max, { name: "Max's lab" });
    expect(created).toMatchObject({ name: "Max's lab", role: "owner" });
    expect(await roleOf(created.id, max.userId)).toBe("owner");
    expect(await db.prompt.count({ where: { workspaceId: created.id, isBuiltin: true } })).toBeGreaterThan(0);
    expect(await members.mine(max)).toEqual({
      workspaces: [
        { id: a, name: "Alpha", role: "member" },
        { id: created.id, name: "Max's lab", role: "owner" },
      ],
      currentWorkspaceId: created.id,
    });
  });

  it("a read-only viewer, or someone in no workspace at all, cannot create one (403, nothing written)", async () => {
    const { vic } = await twoWorkspaces();
    const loner = await user("Loner");
    const before = await db.workspace.count();
    for (const who of [vic, loner]) {
      expect(await refusal(members.create(who, { name: "Mine now" }))).toEqual({
        kind: "forbidden",
        message: expect.stringMatching(/Only members and owners can create a workspace/),
      });
    }
    expect(await db.workspace.count()).toBe(before);
  });

  it("nobody signed in → 401", async () => {
    expect((await refusal(members.create(null, { name: "x" }))).kind).toBe("unauthenticated");
  });
});

describe("the current workspace", () => {
  it("is the oldest membership until the user switches; switching moves it and is remembered", async () => {
    const { a, b, ann, bea } = await twoWorkspaces();
    // Ann joins Beta too (later than Alpha).
    await db.membership.create({ data: { workspaceId: b, userId: ann.userId, role: "viewer" } });
    expect((await members.mine(ann)).currentWorkspaceId).toBe(a);
    expect(await members.switchTo(ann, b)).toEqual({ workspaceId: b });
    expect((await members.mine(ann)).currentWorkspaceId).toBe(b);
    await members.switchTo(ann, a);
    expect((await members.mine(ann)).currentWorkspaceId).toBe(a);
    // Another user's choice is their own.
    expect((await members.mine(bea)).currentWorkspaceId).toBe(b);
  });

  it("switching to a workspace one is not in → 403 and the current one stays", async () => {
    const { a, b, ann } = await twoWorkspaces();
    expect(await refusal(members.switchTo(ann, b))).toEqual({
      kind: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect((await refusal(members.switchTo(ann, "no-such-workspace"))).kind).toBe("forbidden");
    expect((await members.mine(ann)).currentWorkspaceId).toBe(a);
  });

  it("after leaving the current workspace, another one becomes current", async () => {
    const { a, b, bob } = await twoWorkspaces();
    await db.membership.create({ data: { workspaceId: a, userId: bob.userId, role: "member" } });
    await members.switchTo(bob, a);
    await members.leave(bob, a);
    expect(await members.mine(bob)).toEqual({
      workspaces: [{ id: b, name: "Beta", role: "member" }],
      currentWorkspaceId: b,
    });
  });
});

describe("listing members", () => {
  it("any member (viewers too) lists their own workspace's members with roles, oldest first", async () => {
    const { a, ann, max, vic } = await twoWorkspaces();
    const list = await members.listMembers(vic, a);
    expect(list.map((m) => [m.userId, m.name, m.role])).toEqual([
      [ann.userId, "Ann", "owner"],
      [max.userId, "Max", "member"],
      [vic.userId, "Vic", "viewer"],
    ]);
  });

  it("a member of A cannot list B's members (403)", async () => {
    const { b, ann } = await twoWorkspaces();
    expect(await refusal(members.listMembers(ann, b))).toEqual({
      kind: "forbidden",
      message: "You are not a member of this workspace.",
    });
  });
});

describe("changing a role", () => {
  it("an owner changes a member's role; the change is announced after it is stored", async () => {
    const { a, ann, max } = await twoWorkspaces();
    expect(await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "viewer" })).toEqual({
      role: "viewer",
      revokedInvites: 0,
    });
    expect(await roleOf(a, max.userId)).toBe("viewer");
    expect(emitted).toEqual([{ kind: "role", workspaceId: a, userId: max.userId, role: "viewer" }]);
  });

  it("setting the role someone already has changes nothing and announces nothing", async () => {
    const { a, ann, max } = await twoWorkspaces();
    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "member" });
    expect(emitted).toEqual([]);
  });

  it("members and viewers cannot change roles (403 naming their role), not even their own", async () => {
    const { a, ann, max, vic } = await twoWorkspaces();
    expect(await refusal(members.changeRole(max, { workspaceId: a, userId: vic.userId, role: "member" }))).toEqual({
      kind: "forbidden",
      message: "You are a member in this workspace; only an owner can manage this workspace.",
    });
    expect((await refusal(members.changeRole(vic, { workspaceId: a, userId: vic.userId, role: "owner" }))).kind).toBe(
      "forbidden",
    );
    expect((await refusal(members.changeRole(max, { workspaceId: a, userId: ann.userId, role: "viewer" }))).kind).toBe(
      "forbidden",
    );
    expect([await roleOf(a, vic.userId), await roleOf(a, ann.userId)]).toEqual(["viewer", "owner"]);
  });

  it("the last owner cannot be demoted, by themselves (409); with a second owner they can", async () => {
    const { a, ann, max } = await twoWorkspaces();
    expect(await refusal(members.changeRole(ann, { workspaceId: a, userId: ann.userId, role: "member" }))).toEqual({
      kind: "conflict",
      message: "You are the only owner of “Alpha”: make someone else an owner first, then change your role.",
    });
    expect(await roleOf(a, ann.userId)).toBe("owner");

    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "owner" });
    await members.changeRole(ann, { workspaceId: a, userId: ann.userId, role: "member" });
    expect([await roleOf(a, ann.userId), await roleOf(a, max.userId)]).toEqual(["member", "owner"]);
  });

  it("demoting an owner revokes the workspace's open invite links (they have seen them)", async () => {
    const { a, b, ann, max, bea } = await twoWorkspaces();
    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "owner" });
    const open = await openInvite(a, ann);
    const used = await openInvite(a, ann, new Date());
    const elsewhere = await openInvite(b, bea);
    expect(await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "member" })).toEqual({
      role: "member",
      revokedInvites: 1,
    });
    const revoked = async (id: string) => (await db.invite.findUniqueOrThrow({ where: { id } })).revokedAt !== null;
    expect([await revoked(open.id), await revoked(used.id), await revoked(elsewhere.id)]).toEqual([true, false, false]);
  });

  it("cross-workspace by id: an owner of A cannot change B's members (403), nor reach them through A (404)", async () => {
    const { a, b, ann, bob } = await twoWorkspaces();
    expect(await refusal(members.changeRole(ann, { workspaceId: b, userId: bob.userId, role: "viewer" }))).toEqual({
      kind: "forbidden",
      message: "You are not a member of this workspace.",
    });
    expect(await refusal(members.changeRole(ann, { workspaceId: a, userId: bob.userId, role: "viewer" }))).toEqual({
      kind: "not_found",
      message: "That person is not a member of this workspace. Reload the member list.",
    });
    expect(await roleOf(b, bob.userId)).toBe("member");
    expect(emitted).toEqual([]);
  });
});

describe("removing a member", () => {
  it("an owner removes a member: the membership is gone, then the removal is announced", async () => {
    const { a, ann, max } = await twoWorkspaces();
    // The announcement comes after the commit: a listener that looks finds the membership gone.
    const seen: (string | null)[] = [];
    const changes = createMembershipChanges((err) => listenerErrors.push(err));
    changes.subscribe(async (c) => void seen.push(await roleOf(c.workspaceId, c.userId)));
    const service = createMemberService(db, changes);
    expect(await service.removeMember(ann, { workspaceId: a, userId: max.userId })).toEqual({ revokedInvites: 0 });
    expect(await roleOf(a, max.userId)).toBeNull();
    expect(seen).toEqual([null]);
  });

  it("members and viewers cannot remove anyone (403)", async () => {
    const { a, ann, max, vic } = await twoWorkspaces();
    expect((await refusal(members.removeMember(max, { workspaceId: a, userId: vic.userId }))).kind).toBe("forbidden");
    expect((await refusal(members.removeMember(vic, { workspaceId: a, userId: ann.userId }))).kind).toBe("forbidden");
    expect([await roleOf(a, vic.userId), await roleOf(a, ann.userId)]).toEqual(["viewer", "owner"]);
  });

  it("the last owner cannot remove themselves (409); removing someone not (or no longer) there → 404", async () => {
    const { a, ann, max } = await twoWorkspaces();
    expect(await refusal(members.removeMember(ann, { workspaceId: a, userId: ann.userId }))).toEqual({
      kind: "conflict",
      message: "You are the only owner of “Alpha”: make someone else an owner first, then leave.",
    });
    await members.removeMember(ann, { workspaceId: a, userId: max.userId });
    expect((await refusal(members.removeMember(ann, { workspaceId: a, userId: max.userId }))).kind).toBe("not_found");
  });

  it("with two owners, one can remove the other (open invite links are revoked), or themselves", async () => {
    const { a, ann, max, vic } = await twoWorkspaces();
    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "owner" });
    await openInvite(a, max);
    expect(await members.removeMember(ann, { workspaceId: a, userId: max.userId })).toEqual({ revokedInvites: 1 });
    await members.changeRole(ann, { workspaceId: a, userId: vic.userId, role: "owner" });
    await members.removeMember(ann, { workspaceId: a, userId: ann.userId });
    expect((await members.listMembers(vic, a)).map((m) => [m.name, m.role])).toEqual([["Vic", "owner"]]);
  });

  it("cross-workspace by id: an owner of A cannot remove B's members (403), nor through A (404)", async () => {
    const { a, b, ann, bob, bea } = await twoWorkspaces();
    expect((await refusal(members.removeMember(ann, { workspaceId: b, userId: bob.userId }))).kind).toBe("forbidden");
    expect((await refusal(members.removeMember(ann, { workspaceId: b, userId: bea.userId }))).kind).toBe("forbidden");
    expect((await refusal(members.removeMember(ann, { workspaceId: a, userId: bob.userId }))).kind).toBe("not_found");
    expect([await roleOf(b, bob.userId), await roleOf(b, bea.userId)]).toEqual(["member", "owner"]);
    expect(emitted).toEqual([]);
  });

  it("two owners removing each other at the same moment: exactly one succeeds, an owner remains", async () => {
    const { a, ann, max } = await twoWorkspaces();
    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "owner" });
    const settled = await Promise.allSettled([
      members.removeMember(ann, { workspaceId: a, userId: max.userId }),
      members.removeMember(max, { workspaceId: a, userId: ann.userId }),
    ]);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    expect(await db.membership.count({ where: { workspaceId: a, role: "owner" } })).toBe(1);
  });

  it("two owners demoting each other at the same moment: exactly one succeeds, an owner remains", async () => {
    const { a, ann, max } = await twoWorkspaces();
    await members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "owner" });
    const settled = await Promise.allSettled([
      members.changeRole(ann, { workspaceId: a, userId: max.userId, role: "member" }),
      members.changeRole(max, { workspaceId: a, userId: ann.userId, role: "member" }),
    ]);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    for (const s of settled) if (s.status === "rejected") expect(s.reason).toBeInstanceOf(DomainError);
    expect(await db.membership.count({ where: { workspaceId: a, role: "owner" } })).toBe(1);
  });
});

describe("leaving", () => {
  it("a member or viewer leaves; the departure is announced", async () => {
    const { a, max, vic } = await twoWorkspaces();
    await members.leave(max, a);
    await members.leave(vic, a);
    expect([await roleOf(a, max.userId), await roleOf(a, vic.userId)]).toEqual([null, null]);
    expect(emitted).toEqual([
      { kind: "left", workspaceId: a, userId: max.userId },
      { kind: "left", workspaceId: a, userId: vic.userId },
    ]);
  });

  it("the last owner cannot leave (409); someone not in the workspace → 403", async () => {
    const { a, b, ann } = await twoWorkspaces();
    expect(await refusal(members.leave(ann, a))).toEqual({
      kind: "conflict",
      message: "You are the only owner of “Alpha”: make someone else an owner first, then leave.",
    });
    expect((await refusal(members.leave(ann, b))).kind).toBe("forbidden");
    expect(await roleOf(a, ann.userId)).toBe("owner");
  });
});

describe("membership-change listeners", () => {
  it("a listener that throws neither fails the removal nor stops the other listeners", async () => {
    const { a, ann, max } = await twoWorkspaces();
    const errors: unknown[] = [];
    const heard: string[] = [];
    const changes = createMembershipChanges((err) => errors.push(err));
    changes.subscribe(() => {
      throw new Error("socket layer broke");
    });
    changes.subscribe((c) => void heard.push(c.userId));
    await createMemberService(db, changes).removeMember(ann, { workspaceId: a, userId: max.userId });
    expect(heard).toEqual([max.userId]);
    expect(errors).toEqual([new Error("socket layer broke")]);
    expect(await roleOf(a, max.userId)).toBeNull();
  });
});
