/**
 * The workspaces router over HTTP against the real server: the statuses and messages a browser gets,
 * and a whole story — create a second workspace, switch, invite a signed-in user, change their role,
 * remove them. Every account comes from an invite (no first-owner sign-up).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  inviteAndSignUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../../test/helpers/server.ts";

let server: TestServer;
let owner: TestUser;
let member: TestUser;
let viewer: TestUser;
let stranger: TestUser; // owner of another workspace

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUpInNewWorkspace(server, "Olga Owner");
  [member, viewer] = await Promise.all([
    inviteAndSignUp(owner, "member", "Milo Member"),
    inviteAndSignUp(owner, "viewer", "Vera Viewer"),
  ]);
  stranger = await signUpInNewWorkspace(server, "Sid Stranger");
});
afterAll(async () => {
  await server?.stop();
});

type Me = { workspaces: { id: string; name: string; role: string }[]; currentWorkspaceId: string | null };
const me = (u: TestUser) => u.client.ok<Me>("query", "account.me");
const membersOf = (u: TestUser, workspaceId: string) =>
  u.client.ok<{ userId: string; role: string }[]>("query", "workspaces.members", { workspaceId });

describe("refusals", () => {
  it("signed out → 401 on every procedure", async () => {
    const anon = new Client(server.url);
    const ws = { workspaceId: owner.workspaceId };
    const who = { ...ws, userId: member.userId };
    for (const [kind, path, input] of [
      ["mutate", "workspaces.create", { name: "x" }],
      ["mutate", "workspaces.switch", ws],
      ["query", "workspaces.members", ws],
      ["mutate", "workspaces.changeRole", { ...who, role: "viewer" }],
      ["mutate", "workspaces.removeMember", who],
      ["mutate", "workspaces.leave", ws],
    ] as const) {
      const r = kind === "query" ? await anon.query(path, input) : await anon.mutate(path, input);
      expect([path, r.status]).toEqual([path, 401]);
    }
  });

  it("bad input → 400 naming the field", async () => {
    const empty = await owner.client.mutate("workspaces.create", { name: "   " });
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toBe("name: Give the workspace a name.");
    const role = await owner.client.mutate("workspaces.changeRole", {
      workspaceId: owner.workspaceId,
      userId: member.userId,
      role: "admin",
    });
    expect(role.status).toBe(400);
    expect(role.error?.data.issues?.[0]?.path).toEqual(["role"]);
  });

  it("another workspace's owner gets 403 and no member data for everything here, by id", async () => {
    const ws = { workspaceId: owner.workspaceId };
    for (const [kind, path, input] of [
      ["query", "workspaces.members", ws],
      ["mutate", "workspaces.switch", ws],
      ["mutate", "workspaces.changeRole", { ...ws, userId: member.userId, role: "viewer" }],
      ["mutate", "workspaces.removeMember", { ...ws, userId: member.userId }],
      ["mutate", "workspaces.leave", ws],
    ] as const) {
      const r = kind === "query" ? await stranger.client.query(path, input) : await stranger.client.mutate(path, input);
      expect([path, r.status, r.error?.message]).toEqual([path, 403, "You are not a member of this workspace."]);
      expect(JSON.stringify(r.body)).not.toContain(member.email);
    }
    // Naming this workspace's member in their own workspace finds no one.
    const r = await stranger.client.mutate("workspaces.removeMember", {
      workspaceId: stranger.workspaceId,
      userId: member.userId,
    });
    expect(r.status).toBe(404);
    expect((await membersOf(owner, owner.workspaceId)).map((m) => m.userId)).toContain(member.userId);
  });

  it("a viewer cannot create a workspace (403); a member cannot remove anyone (403)", async () => {
    const create = await viewer.client.mutate("workspaces.create", { name: "Viewer's own" });
    expect(create.status).toBe(403);
    expect(create.error?.message).toMatch(/Ask an owner of your workspace to make you a member/);
    const remove = await member.client.mutate("workspaces.removeMember", {
      workspaceId: owner.workspaceId,
      userId: viewer.userId,
    });
    expect(remove.status).toBe(403);
  });

  it("the last owner cannot leave or demote themselves (409, saying what to do)", async () => {
    const leave = await owner.client.mutate("workspaces.leave", { workspaceId: owner.workspaceId });
    expect(leave.status).toBe(409);
    expect(leave.error?.message).toBe(
      "You are the only owner of “Olga Owner's workspace”: make someone else an owner first, then leave.",
    );
    const demote = await owner.client.mutate("workspaces.changeRole", {
      workspaceId: owner.workspaceId,
      userId: owner.userId,
      role: "member",
    });
    expect(demote.status).toBe(409);
  });
});

describe("two workspaces, one story", () => {
  it("create a second workspace, switch, invite a signed-in user, change their role, remove them", async () => {
    const created = await owner.client.ok<{ id: string; name: string; role: string }>("mutate", "workspaces.create", {
      name: "  Research  ",
    });
    expect(created).toMatchObject({ name: "Research", role: "owner" });
    expect(await me(owner)).toEqual({
      user: expect.anything(),
      workspaces: [
        { id: owner.workspaceId, name: "Olga Owner's workspace", role: "owner" },
        { id: created.id, name: "Research", role: "owner" },
      ],
      currentWorkspaceId: created.id,
    });
    // The new workspace has its own built-in prompts.
    const prompts = await owner.client.ok<unknown[]>("query", "prompts.list", { workspaceId: created.id });
    expect(prompts.length).toBeGreaterThan(0);

    await owner.client.ok("mutate", "workspaces.switch", { workspaceId: owner.workspaceId });
    expect((await me(owner)).currentWorkspaceId).toBe(owner.workspaceId);
    await owner.client.ok("mutate", "workspaces.switch", { workspaceId: created.id });

    // The invite names the workspace; the member (already signed in) accepts and lands in it.
    const invite = await owner.client.ok<{ token: string }>("mutate", "account.createInvite", {
      workspaceId: created.id,
      role: "member",
    });
    const info = await new Client(server.url).ok("query", "account.inviteInfo", { token: invite.token });
    expect(info).toMatchObject({ workspaceName: "Research", role: "member", status: "valid" });
    expect(await member.client.ok("mutate", "account.acceptInvite", { token: invite.token })).toEqual({
      workspaceId: created.id,
      role: "member",
    });
    expect((await me(member)).currentWorkspaceId).toBe(created.id);

    await owner.client.ok("mutate", "workspaces.changeRole", {
      workspaceId: created.id,
      userId: member.userId,
      role: "viewer",
    });
    expect((await membersOf(member, created.id)).find((m) => m.userId === member.userId)?.role).toBe("viewer");
    // The role applies in that workspace only: still a member in the first one.
    expect((await me(member)).workspaces.find((w) => w.id === owner.workspaceId)?.role).toBe("member");

    expect(
      await owner.client.ok("mutate", "workspaces.removeMember", { workspaceId: created.id, userId: member.userId }),
    ).toEqual({ revokedInvites: 0 });
    expect((await me(member)).workspaces.map((w) => w.id)).toEqual([owner.workspaceId]);
    expect((await me(member)).currentWorkspaceId).toBe(owner.workspaceId);
    expect((await member.client.query("workspaces.members", { workspaceId: created.id })).status).toBe(403);
    expect((await member.client.query("projects.list", { workspaceId: created.id })).status).toBe(403);
  });

  it("a member leaves; they are gone from the list and from their own workspaces", async () => {
    const leaver = await inviteAndSignUp(owner, "member", "Lea Leaver");
    await leaver.client.ok("mutate", "workspaces.leave", { workspaceId: owner.workspaceId });
    expect((await membersOf(owner, owner.workspaceId)).map((m) => m.userId)).not.toContain(leaver.userId);
    expect(await me(leaver)).toMatchObject({ workspaces: [], currentWorkspaceId: null });
  });
});
