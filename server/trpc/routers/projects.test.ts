/** Projects over tRPC against the real server. */
import { describe, expect, it } from "vitest";
import { startServerWithTeam } from "./test-support.ts";

interface Project {
  uid: string;
  workspaceId: string;
  name: string;
  sourceKind: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}

const { owner, member, viewer } = await startServerWithTeam();

const list = (user = member) => user.client.ok<Project[]>("query", "projects.list", { workspaceId: owner.workspaceId });
const create = (name: string, uid: string = crypto.randomUUID(), user = member) =>
  user.client.mutate<Project>("projects.create", { workspaceId: owner.workspaceId, uid, name });

describe("projects", () => {
  it("a new workspace has no projects", async () => {
    expect(await list()).toEqual([]);
  });

  it("create → list (newest first) → get", async () => {
    const a = await create("  Alpha  ");
    expect(a.status).toBe(200);
    expect(a.data).toMatchObject({
      name: "Alpha",
      workspaceId: owner.workspaceId,
      sourceKind: "none",
      status: "empty",
    });
    expect(a.data).not.toHaveProperty("id");
    await new Promise((r) => setTimeout(r, 5)); // distinct createdAt
    const b = await create("Beta");
    expect(b.status).toBe(200);

    const names = (await list(viewer)).map((p) => p.name);
    expect(names.slice(0, 2)).toEqual(["Beta", "Alpha"]);

    const got = await viewer.client.ok<Project>("query", "projects.get", { uid: a.data.uid });
    expect(got).toEqual(a.data);
  });

  it("rename changes the name only", async () => {
    const p = (await create("Old name")).data;
    const r = await member.client.mutate<Project>("projects.rename", { uid: p.uid, name: "New name" });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ uid: p.uid, name: "New name", createdAt: p.createdAt });
    expect((await member.client.ok<Project>("query", "projects.get", { uid: p.uid })).name).toBe("New name");
  });

  it("delete removes it; a second delete → 404", async () => {
    const p = (await create("Doomed")).data;
    expect((await member.client.mutate("projects.delete", { uid: p.uid })).status).toBe(200);
    expect((await list()).some((x) => x.uid === p.uid)).toBe(false);
    expect((await member.client.query("projects.get", { uid: p.uid })).status).toBe(404);
    expect((await member.client.mutate("projects.delete", { uid: p.uid })).status).toBe(404);
  });

  it("an unknown uid → 404 for get, rename and delete", async () => {
    const uid = crypto.randomUUID();
    for (const r of [
      await member.client.query("projects.get", { uid }),
      await member.client.mutate("projects.rename", { uid, name: "x" }),
      await member.client.mutate("projects.delete", { uid }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.error?.message).toBe(`No project with id ${uid}. It may have been deleted.`);
    }
  });

  it.each([
    ["an empty name", ""],
    ["a blank name", "   "],
    ["a 121-character name", "p".repeat(121)],
  ])('%s → 400 naming "name", on create and rename', async (_label, name) => {
    const c = await create(name);
    expect(c.status).toBe(400);
    expect(c.error?.data.issues?.map((i) => i.path.join("."))).toEqual(["name"]);
    expect(c.error?.message).toMatch(/^name: /);

    const p = (await create("Valid")).data;
    const r = await member.client.mutate("projects.rename", { uid: p.uid, name });
    expect(r.status).toBe(400);
    expect(r.error?.data.issues?.map((i) => i.path.join("."))).toEqual(["name"]);
    expect((await member.client.ok<Project>("query", "projects.get", { uid: p.uid })).name).toBe("Valid");
  });

  it("a uid that is not a UUID → 400 naming uid", async () => {
    const r = await create("Fine", "123");
    expect(r.status).toBe(400);
    expect(r.error?.message).toBe("uid: uid must be a UUID");
  });

  it("a duplicate uid → 409 and the original keeps its name", async () => {
    const p = (await create("First")).data;
    const r = await create("Second", p.uid);
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/already exists/);
    expect((await member.client.ok<Project>("query", "projects.get", { uid: p.uid })).name).toBe("First");
  });

  it("a viewer can list and get but not create, rename or delete (403)", async () => {
    const p = (await create("Protected")).data;
    expect((await create("Viewer's", crypto.randomUUID(), viewer)).status).toBe(403);
    expect((await viewer.client.mutate("projects.rename", { uid: p.uid, name: "Hijack" })).status).toBe(403);
    expect((await viewer.client.mutate("projects.delete", { uid: p.uid })).status).toBe(403);
    expect((await viewer.client.ok<Project>("query", "projects.get", { uid: p.uid })).name).toBe("Protected");
  });

  it("the owner can do everything a member can", async () => {
    const r = await create("Owner's", crypto.randomUUID(), owner);
    expect(r.status).toBe(200);
    expect((await owner.client.mutate("projects.delete", { uid: r.data.uid })).status).toBe(200);
  });
});
