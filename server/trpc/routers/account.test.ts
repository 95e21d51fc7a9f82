/** Workspaces, roles and invite links over tRPC against the real server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  inviteAndSignUp,
  signIn,
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  uniqueEmail,
  PASSWORD,
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
  owner = await signUp(server.url, { name: "Olivia Owner" });
  [member, viewer] = await Promise.all([
    inviteAndSignUp(owner, "member", "Mia Member"),
    inviteAndSignUp(owner, "viewer", "Victor Viewer"),
  ]);
  stranger = await signUpInNewWorkspace(server, "Stan Stranger");
});
afterAll(async () => {
  await server?.stop();
});

const anon = () => new Client(server.url);
const createInvite = (user: TestUser, role: string, workspaceId = owner.workspaceId, extra: object = {}) =>
  user.client.mutate<{ id: string; token: string; role: string; expiresAt: string }>("account.createInvite", {
    workspaceId,
    role,
    ...extra,
  });

describe("roles from invites", () => {
  it("the invited users joined the owner's workspace with the invited roles", async () => {
    expect(member.workspaceId).toBe(owner.workspaceId);
    expect(member.role).toBe("member");
    expect(viewer.role).toBe("viewer");
    const members = await viewer.client.ok<{ userId: string; role: string; email: string }[]>(
      "query",
      "workspaces.members",
      {
        workspaceId: owner.workspaceId,
      },
    );
    expect(members.map((m) => [m.userId, m.role])).toEqual([
      [owner.userId, "owner"],
      expect.anything(),
      expect.anything(),
    ]);
    expect(Object.fromEntries(members.map((m) => [m.userId, m.role]))).toEqual({
      [owner.userId]: "owner",
      [member.userId]: "member",
      [viewer.userId]: "viewer",
    });
    // Invited users do not get a workspace of their own, nor built-in prompts seeded twice.
    expect(await server.services.db.workspace.count()).toBe(2);
  });

  it("account.me lists only the user's own workspaces", async () => {
    const me = await stranger.client.ok<{ workspaces: { id: string; role: string }[] }>("query", "account.me");
    expect(me.workspaces.map((w) => w.id)).not.toContain(owner.workspaceId);
    expect(me.workspaces).toHaveLength(1);
  });
});

describe("another workspace's data", () => {
  it.each([
    ["query", "prompts.list"],
    ["query", "projects.list"],
    ["query", "workspaces.members"],
    ["query", "account.invites"],
  ] as const)("%s %s of a workspace the user is not in → 403", async (_kind, path) => {
    const r = await stranger.client.query(path, { workspaceId: owner.workspaceId });
    expect(r.status).toBe(403);
    expect(r.error?.message).toBe("You are not a member of this workspace.");
  });

  it("creating prompts, projects or invites there → 403, and nothing is written", async () => {
    const uid = crypto.randomUUID();
    expect(
      (await stranger.client.mutate("prompts.create", { workspaceId: owner.workspaceId, uid, name: "x", content: "y" }))
        .status,
    ).toBe(403);
    expect(
      (await stranger.client.mutate("projects.create", { workspaceId: owner.workspaceId, uid, name: "x" })).status,
    ).toBe(403);
    expect((await createInvite(stranger, "member")).status).toBe(403);
    expect(await server.services.db.prompt.findUnique({ where: { uid } })).toBeNull();
    expect(await server.services.db.project.findUnique({ where: { uid } })).toBeNull();
  });

  it("reading, editing or deleting one of its prompts by uid → 403", async () => {
    const prompts = await owner.client.ok<{ uid: string; isDefault: boolean; isBuiltin: boolean }[]>(
      "query",
      "prompts.list",
      {
        workspaceId: owner.workspaceId,
      },
    );
    const uid = prompts[0]!.uid;
    expect((await stranger.client.query("prompts.get", { uid })).status).toBe(403);
    expect((await stranger.client.mutate("prompts.update", { uid, name: "Hijacked" })).status).toBe(403);
    expect((await stranger.client.mutate("prompts.setDefault", { uid, isDefault: false })).status).toBe(403);
    expect((await stranger.client.mutate("prompts.duplicate", { uid, newUid: crypto.randomUUID() })).status).toBe(403);
    expect((await stranger.client.mutate("prompts.delete", { uid })).status).toBe(403);
  });

  it("a workspace owner cannot revoke another workspace's invite", async () => {
    const invite = (await createInvite(owner, "member")).data;
    const r = await stranger.client.mutate("account.revokeInvite", { id: invite.id });
    expect(r.status).toBe(403);
    expect((await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token })).status).toBe(
      "valid",
    );
  });
});

describe("what each role may do", () => {
  it("a viewer can read prompts, projects and members", async () => {
    for (const path of ["prompts.list", "projects.list", "workspaces.members"]) {
      const r = await viewer.client.query(path, { workspaceId: owner.workspaceId });
      expect(r.status, path).toBe(200);
    }
  });

  it("a viewer cannot create or change prompts or projects (403 naming the role)", async () => {
    const uid = crypto.randomUUID();
    const create = await viewer.client.mutate("prompts.create", {
      workspaceId: owner.workspaceId,
      uid,
      name: "Mine",
      content: "text",
    });
    expect(create.status).toBe(403);
    expect(create.error?.message).toMatch(
      /^You are a read-only viewer in this workspace; only a member .*can make changes here\.$/,
    );

    const project = await viewer.client.mutate("projects.create", {
      workspaceId: owner.workspaceId,
      uid,
      name: "Mine",
    });
    expect(project.status).toBe(403);

    const own = await member.client.ok<{ uid: string }>("mutate", "prompts.create", {
      workspaceId: owner.workspaceId,
      uid: crypto.randomUUID(),
      name: "Member's prompt",
      content: "Original text",
    });
    expect((await viewer.client.mutate("prompts.update", { uid: own.uid, content: "Viewer text" })).status).toBe(403);
    expect((await viewer.client.mutate("prompts.setDefault", { uid: own.uid, isDefault: true })).status).toBe(403);
    expect(
      (await viewer.client.mutate("prompts.duplicate", { uid: own.uid, newUid: crypto.randomUUID() })).status,
    ).toBe(403);
    expect((await viewer.client.mutate("prompts.delete", { uid: own.uid })).status).toBe(403);
    const after = await viewer.client.ok<{ content: string; isDefault: boolean }>("query", "prompts.get", {
      uid: own.uid,
    });
    expect(after).toMatchObject({ content: "Original text", isDefault: false });
  });

  it("a member can create prompts and projects", async () => {
    const uid = crypto.randomUUID();
    const p = await member.client.mutate("prompts.create", {
      workspaceId: owner.workspaceId,
      uid,
      name: "By member",
      content: "text",
    });
    expect(p.status).toBe(200);
    const proj = await member.client.mutate("projects.create", {
      workspaceId: owner.workspaceId,
      uid: crypto.randomUUID(),
      name: "By member",
    });
    expect(proj.status).toBe(200);
  });

  it("only the owner manages invites: members and viewers get 403", async () => {
    for (const user of [member, viewer]) {
      expect((await createInvite(user, "viewer")).status).toBe(403);
      expect((await user.client.query("account.invites", { workspaceId: owner.workspaceId })).status).toBe(403);
    }
    const invite = (await createInvite(owner, "viewer")).data;
    const r = await member.client.mutate("account.revokeInvite", { id: invite.id });
    expect(r.status).toBe(403);
    expect(r.error?.message).toBe("You are a member in this workspace; only an owner can manage this workspace.");
    // (Was "only a owner or above can manage this workspace".)
  });

  it("an owner invite cannot be created (400 naming role)", async () => {
    const r = await createInvite(owner, "owner");
    expect(r.status).toBe(400);
    expect(r.error?.data.issues?.map((i) => i.path.join("."))).toEqual(["role"]);
  });
});

describe("invite links", () => {
  it("inviteInfo (public) reports the workspace, role and status", async () => {
    const invite = (await createInvite(owner, "viewer")).data;
    expect(invite.role).toBe("viewer");
    const info = await anon().ok<{ workspaceName: string; role: string; status: string; expiresAt: string }>(
      "query",
      "account.inviteInfo",
      {
        token: invite.token,
      },
    );
    expect(info).toMatchObject({ workspaceName: "Olivia's workspace", role: "viewer", status: "valid" });
    expect(new Date(info.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000); // default 7 days
  });

  it("a link works once: the second sign-up with it → 409 and no second account", async () => {
    const invite = (await createInvite(owner, "member")).data;
    const first = await signUp(server.url, { name: "Once", inviteToken: invite.token });
    expect(first.role).toBe("member");

    const email = uniqueEmail("twice");
    const second = await anon().mutate("account.signUp", {
      name: "Twice",
      email,
      password: PASSWORD,
      inviteToken: invite.token,
    });
    expect(second.status).toBe(409);
    expect(second.error?.message).toMatch(/already been used/);
    expect(await server.services.db.user.findUnique({ where: { email } })).toBeNull();

    const info = await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token });
    expect(info.status).toBe("used");
    const listed = await owner.client.ok<{ id: string; status: string }[]>("query", "account.invites", {
      workspaceId: owner.workspaceId,
    });
    expect(listed.find((i) => i.id === invite.id)?.status).toBe("used");
  });

  it("two people racing for the same link: exactly one gets in", async () => {
    const invite = (await createInvite(owner, "member")).data;
    const emails = [uniqueEmail("racer"), uniqueEmail("racer")];
    const results = await Promise.all(
      emails.map((email) =>
        anon().mutate("account.signUp", { name: "Racer", email, password: PASSWORD, inviteToken: invite.token }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const users = await server.services.db.user.findMany({ where: { email: { in: emails } } });
    expect(users).toHaveLength(1); // the loser's account was removed again
    const memberships = await server.services.db.membership.count({
      where: { userId: { in: users.map((u) => u.id) } },
    });
    expect(memberships).toBe(1);
  });

  it("a revoked link → 409 on sign-up; inviteInfo says revoked", async () => {
    const invite = (await createInvite(owner, "member")).data;
    expect((await owner.client.mutate("account.revokeInvite", { id: invite.id })).status).toBe(200);
    const email = uniqueEmail("revoked");
    const r = await anon().mutate("account.signUp", {
      name: "Late",
      email,
      password: PASSWORD,
      inviteToken: invite.token,
    });
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/revoked/);
    expect(await server.services.db.user.findUnique({ where: { email } })).toBeNull();
    expect((await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token })).status).toBe(
      "revoked",
    );
  });

  it("an expired link → 409 on sign-up; inviteInfo says expired", async () => {
    const invite = (await createInvite(owner, "member")).data;
    await server.services.db.invite.update({
      where: { id: invite.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const r = await anon().mutate("account.signUp", {
      name: "Late",
      email: uniqueEmail("expired"),
      password: PASSWORD,
      inviteToken: invite.token,
    });
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/expired/);
    expect((await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token })).status).toBe(
      "expired",
    );
  });

  it("an unknown token → 404 for both inviteInfo and sign-up", async () => {
    const info = await anon().query("account.inviteInfo", { token: "no-such-token" });
    expect(info.status).toBe(404);
    expect(info.error?.message).toMatch(/not valid/);
    const email = uniqueEmail("unknown");
    const r = await anon().mutate("account.signUp", {
      name: "Lost",
      email,
      password: PASSWORD,
      inviteToken: "no-such-token",
    });
    expect(r.status).toBe(404);
    expect(await server.services.db.user.findUnique({ where: { email } })).toBeNull();
  });

  it("revoking an unknown invite → 404", async () => {
    expect((await owner.client.mutate("account.revokeInvite", { id: "nope" })).status).toBe(404);
  });

  it("a signed-in user can accept an invite to join a second workspace", async () => {
    const invite = (await createInvite(stranger, "viewer", stranger.workspaceId)).data;
    const r = await member.client.mutate<{ workspaceId: string; role: string }>("account.acceptInvite", {
      token: invite.token,
    });
    expect(r.status).toBe(200);
    expect(r.data).toEqual({ workspaceId: stranger.workspaceId, role: "viewer" });
    const me = await member.client.ok<{ workspaces: { id: string; role: string }[] }>("query", "account.me");
    expect(me.workspaces).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: owner.workspaceId, role: "member" }),
        expect.objectContaining({ id: stranger.workspaceId, role: "viewer" }),
      ]),
    );
    // The viewer role applies in that workspace only.
    const write = await member.client.mutate("projects.create", {
      workspaceId: stranger.workspaceId,
      uid: crypto.randomUUID(),
      name: "x",
    });
    expect(write.status).toBe(403);
    // And the link is spent.
    expect((await viewer.client.mutate("account.acceptInvite", { token: invite.token })).status).toBe(409);
  });

  it("accepting a viewer invite never downgrades an existing member", async () => {
    const invite = (await createInvite(owner, "viewer")).data;
    const r = await member.client.mutate<{ role: string }>("account.acceptInvite", { token: invite.token });
    expect(r.status).toBe(200);
    expect(r.data.role).toBe("member");
    const members = await owner.client.ok<{ userId: string; role: string }[]>("query", "workspaces.members", {
      workspaceId: owner.workspaceId,
    });
    expect(members.find((m) => m.userId === member.userId)?.role).toBe("member");
    // The link was not spent on someone already inside: its invitee can still use it.
    const info = await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token });
    expect(info.status).toBe("valid");
  });

  it("revoking a link that was already used → 409 saying it would not remove the member", async () => {
    const invite = (await createInvite(owner, "member")).data;
    const r = await stranger.client.mutate<{ role: string }>("account.acceptInvite", { token: invite.token });
    expect(r.status).toBe(200);
    const revoke = await owner.client.mutate("account.revokeInvite", { id: invite.id });
    expect(revoke.status).toBe(409);
    expect(revoke.error?.message).toMatch(/already used/);
    expect((await anon().ok<{ status: string }>("query", "account.inviteInfo", { token: invite.token })).status).toBe(
      "used",
    );
  });

  it("the invited user can sign in later with their password", async () => {
    const { res, client } = await signIn(server.url, viewer.email, viewer.password);
    expect(res.status).toBe(200);
    const me = await client.ok<{ workspaces: { id: string; role: string }[] }>("query", "account.me");
    expect(me.workspaces).toEqual([expect.objectContaining({ id: owner.workspaceId, role: "viewer" })]);
  });
});
