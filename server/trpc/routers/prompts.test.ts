/** Review prompts over tRPC against the real server: defaults, built-ins, versions, validation. */
import { describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { testProvider } from "../../../test/helpers/db.ts";
import { startServerWithTeam } from "./test-support.ts";
import { builtinUid, loadBuiltinPrompts } from "../../prompts/builtins.ts";

interface Prompt {
  uid: string;
  workspaceId: string;
  name: string;
  content: string;
  version: number;
  isDefault: boolean;
  isBuiltin: boolean;
  createdAt: string;
  updatedAt: string;
}

const { server, owner, member } = await startServerWithTeam();

const list = () => member.client.ok<Prompt[]>("query", "prompts.list", { workspaceId: owner.workspaceId });
const defaults = async () => (await list()).filter((p) => p.isDefault);
const create = (input: Partial<{ uid: string; name: string; content: string; isDefault: boolean }> = {}) =>
  member.client.mutate<Prompt>("prompts.create", {
    workspaceId: owner.workspaceId,
    uid: crypto.randomUUID(),
    name: "My prompt",
    content: "Review carefully.",
    ...input,
  });
const createOk = async (input: Parameters<typeof create>[0] = {}) => {
  const r = await create(input);
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.data;
};
const setDefault = (uid: string, isDefault = true) =>
  member.client.mutate<Prompt>("prompts.setDefault", { uid, isDefault });
const builtin = (key: string) => builtinUid(owner.workspaceId, key);

/**
 * Makes requests overlap deterministically: holds a write lock on the workspace's default prompt row
 * while `start()` sends them, waits until `blocked` of them are queued behind it (PostgreSQL: seen in
 * pg_stat_activity; SQLite: a short pause, since it has one writer anyway), then releases the lock.
 */
async function whileDefaultRowLocked<T>(start: () => Promise<T>, blocked: number): Promise<T> {
  const { db } = server.services;
  let pending!: Promise<T>;
  await db.$transaction(
    async (tx) => {
      const locked = await tx.prompt.updateMany({
        where: { workspaceId: owner.workspaceId, isDefault: true },
        data: { isDefault: true },
      });
      expect(locked.count).toBe(1);
      pending = start();
      pending.catch(() => undefined);
      if (testProvider() === "sqlite") return void (await sleep(300));
      for (let i = 0; i < 100; i++) {
        const [row] = await db.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (row!.n >= blocked) return;
        await sleep(20);
      }
      throw new Error(`the requests did not queue behind the lock`);
    },
    { timeout: 10_000 },
  );
  return pending;
}
const defaultBuiltinKey = loadBuiltinPrompts().find((b) => b.isDefault)!.key;

describe("prompts.list and get", () => {
  it("a new workspace has the built-ins, the manifest's default first", async () => {
    const prompts = await list();
    const builtins = loadBuiltinPrompts();
    expect(prompts.filter((p) => p.isBuiltin)).toHaveLength(builtins.length);
    expect(prompts[0]).toMatchObject({ uid: builtin(defaultBuiltinKey), isDefault: true, isBuiltin: true, version: 1 });
    expect(prompts.filter((p) => p.isDefault)).toHaveLength(1);
    // Internal columns stay internal.
    expect(prompts[0]).not.toHaveProperty("id");
    expect(prompts[0]).not.toHaveProperty("builtinKey");
  });

  it("get returns one prompt; an unknown uid → 404", async () => {
    const p = await member.client.ok<Prompt>("query", "prompts.get", { uid: builtin("security-audit") });
    expect(p.name).toBe("Security audit");
    const missing = await member.client.query("prompts.get", { uid: crypto.randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.error?.message).toMatch(/^No prompt with id /);
  });
});

describe("prompts.create", () => {
  it("creates a non-default prompt by default, trimming the name", async () => {
    const p = await createOk({ name: "  Padded name  " });
    expect(p).toMatchObject({
      name: "Padded name",
      isDefault: false,
      isBuiltin: false,
      version: 1,
      workspaceId: owner.workspaceId,
    });
    expect((await list()).some((x) => x.uid === p.uid)).toBe(true);
  });

  it("with isDefault: true, unsets the previous default (exactly one default after)", async () => {
    const before = await defaults();
    expect(before).toHaveLength(1);
    const p = await createOk({ name: "New default", isDefault: true });
    expect(p.isDefault).toBe(true);
    const after = await defaults();
    expect(after.map((x) => x.uid)).toEqual([p.uid]);
    expect((await member.client.ok<Prompt>("query", "prompts.get", { uid: before[0]!.uid })).isDefault).toBe(false);
  });

  // (Was a bug on PostgreSQL: the loser's P2002 from the one-default index came back as
  // "A prompt with this id already exists" (409).)
  it("two overlapping creates with isDefault: true both succeed, leaving one default", async () => {
    const results = await whileDefaultRowLocked(
      () =>
        Promise.all([
          create({ name: "Overlap default 1", isDefault: true }),
          create({ name: "Overlap default 2", isDefault: true }),
        ]),
      2,
    );
    expect(await defaults()).toHaveLength(1);
    expect(results.map((r) => [r.status, r.error?.message])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
  });

  it("a duplicate uid → 409, and the existing prompt is untouched", async () => {
    const p = await createOk({ name: "Original" });
    const r = await create({ uid: p.uid, name: "Impostor", isDefault: true });
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/already exists/);
    expect((await member.client.ok<Prompt>("query", "prompts.get", { uid: p.uid })).name).toBe("Original");
    expect(await defaults()).toHaveLength(1); // the failed create did not unset the default either
  });

  it.each([
    ["a uid that is not a UUID", { uid: "not-a-uuid" }, "uid", /^uid: uid must be a UUID$/m],
    ["an empty name", { name: "" }, "name", /^name: Give the prompt a name\.$/m],
    ["a blank name", { name: "    " }, "name", /^name: Give the prompt a name\.$/m],
    ["a 121-character name", { name: "x".repeat(121) }, "name", /^name: Keep the name under 120 characters\.$/m],
    ["blank content", { content: " \n " }, "content", /^content: The prompt text is empty\.$/m],
    [
      "content over 100,000 characters",
      { content: "x".repeat(100_001) },
      "content",
      /^content: Keep the prompt under 100,000 characters\.$/m,
    ],
    ["an empty workspaceId", { workspaceId: "" }, "workspaceId", /^workspaceId: /m],
  ] as const)("%s → 400 naming the field", async (_label, input, field, message) => {
    const r = await create(input as object);
    expect(r.status).toBe(400);
    expect(r.error?.data.code).toBe("BAD_REQUEST");
    expect(r.error?.data.issues?.map((i) => i.path.join("."))).toEqual([field]);
    expect(r.error?.message).toMatch(message);
    expect(r.error?.data.fieldErrors).toHaveProperty(field);
  });

  it("several invalid fields are all reported", async () => {
    const r = await member.client.mutate("prompts.create", {
      workspaceId: owner.workspaceId,
      uid: "x",
      name: "",
      content: "",
    });
    expect(r.status).toBe(400);
    expect(r.error?.data.issues?.map((i) => i.path.join(".")).sort()).toEqual(["content", "name", "uid"]);
  });

  it("a missing body is a 400, not a 500", async () => {
    const r = await member.client.mutate("prompts.create");
    expect(r.status).toBe(400);
  });
});

describe("prompts.setDefault", () => {
  it("flips the default in one step: the new one on, the old one off", async () => {
    const old = (await defaults())[0]!;
    const target = builtin("security-audit");
    const r = await setDefault(target);
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ uid: target, isDefault: true });
    expect((await defaults()).map((p) => p.uid)).toEqual([target]);
    expect((await member.client.ok<Prompt>("query", "prompts.get", { uid: old.uid })).isDefault).toBe(false);
  });

  it("setting the current default again keeps exactly one default", async () => {
    const current = (await defaults())[0]!;
    expect((await setDefault(current.uid)).status).toBe(200);
    expect((await defaults()).map((p) => p.uid)).toEqual([current.uid]);
  });

  it("an unknown uid → 404; a bad uid → 400", async () => {
    expect((await setDefault(crypto.randomUUID())).status).toBe(404);
    const bad = await setDefault("nope");
    expect(bad.status).toBe(400);
    expect(bad.error?.data.issues?.[0]?.path).toEqual(["uid"]);
  });

  it("concurrent setDefault calls never leave two defaults", async () => {
    const mine = await Promise.all([1, 2, 3, 4].map((i) => createOk({ name: `Race ${i}` })));
    await Promise.all(mine.map((p) => setDefault(p.uid)));
    const after = await defaults();
    expect(after).toHaveLength(1);
    expect(mine.map((p) => p.uid)).toContain(after[0]!.uid);
  });

  // (Was a bug on PostgreSQL: both overlapping requests cleared the old default, the second then hit
  // the partial unique index and the user got a 500.)
  it("two overlapping setDefault calls both succeed (no 500), leaving one default", async () => {
    const [a, b] = await Promise.all([createOk({ name: "Overlap A" }), createOk({ name: "Overlap B" })]);
    const results = await whileDefaultRowLocked(() => Promise.all([setDefault(a.uid), setDefault(b.uid)]), 2);
    expect(await defaults()).toHaveLength(1);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
  });
});

describe("prompts.delete", () => {
  it("deletes a user prompt", async () => {
    const p = await createOk({ name: "Short-lived" });
    expect((await member.client.mutate("prompts.delete", { uid: p.uid })).status).toBe(200);
    expect((await member.client.query("prompts.get", { uid: p.uid })).status).toBe(404);
    expect((await member.client.mutate("prompts.delete", { uid: p.uid })).status).toBe(404);
  });

  it("the default cannot be deleted (409 with a readable message)", async () => {
    const p = await createOk({ name: "Default to keep", isDefault: true });
    const r = await member.client.mutate("prompts.delete", { uid: p.uid });
    expect(r.status).toBe(409);
    expect(r.error?.message).toBe(
      "This is the default review prompt. Make another prompt the default first, then delete this one.",
    );
    expect((await defaults()).map((x) => x.uid)).toEqual([p.uid]);
  });

  it("a built-in cannot be deleted (409)", async () => {
    const uid = builtin("performance-review");
    const r = await member.client.mutate("prompts.delete", { uid });
    expect(r.status).toBe(409);
    expect(r.error?.message).toMatch(/Built-in prompts can't be deleted/);
    expect((await member.client.query("prompts.get", { uid })).status).toBe(200);
  });
});

describe("prompts.update", () => {
  it("a built-in is read-only (409), for content and for name", async () => {
    const uid = builtin("security-audit");
    for (const change of [{ content: "Hacked" }, { name: "Renamed" }]) {
      const r = await member.client.mutate("prompts.update", { uid, ...change });
      expect(r.status).toBe(409);
      expect(r.error?.message).toMatch(/read-only/);
    }
    const p = await member.client.ok<Prompt>("query", "prompts.get", { uid });
    expect(p).toMatchObject({ name: "Security audit", version: 1 });
  });

  it("changing the content bumps the version; renaming alone or re-saving the same text does not", async () => {
    const p = await createOk({ name: "Versioned", content: "v1 text" });
    expect(p.version).toBe(1);

    const renamed = await member.client.ok<Prompt>("mutate", "prompts.update", {
      uid: p.uid,
      name: "Versioned (renamed)",
    });
    expect(renamed).toMatchObject({ name: "Versioned (renamed)", content: "v1 text", version: 1 });

    const edited = await member.client.ok<Prompt>("mutate", "prompts.update", { uid: p.uid, content: "v2 text" });
    expect(edited).toMatchObject({ name: "Versioned (renamed)", content: "v2 text", version: 2 });

    const same = await member.client.ok<Prompt>("mutate", "prompts.update", { uid: p.uid, content: "v2 text" });
    expect(same.version).toBe(2);

    const both = await member.client.ok<Prompt>("mutate", "prompts.update", {
      uid: p.uid,
      name: "Final",
      content: "v3 text",
    });
    expect(both).toMatchObject({ name: "Final", content: "v3 text", version: 3 });
    expect((await member.client.ok<Prompt>("query", "prompts.get", { uid: p.uid })).version).toBe(3);
  });

  it("invalid input → 400 naming the field; unknown uid → 404", async () => {
    const p = await createOk();
    const empty = await member.client.mutate("prompts.update", { uid: p.uid, name: " " });
    expect(empty.status).toBe(400);
    expect(empty.error?.data.issues?.map((i) => i.path.join("."))).toEqual(["name"]);
    expect(empty.error?.message).toMatch(/^name: /);
    const blank = await member.client.mutate("prompts.update", { uid: p.uid, content: "" });
    expect(blank.status).toBe(400);
    expect(blank.error?.data.issues?.map((i) => i.path.join("."))).toEqual(["content"]);
    expect((await member.client.mutate("prompts.update", { uid: crypto.randomUUID(), name: "x" })).status).toBe(404);
  });
});

describe("prompts.duplicate", () => {
  it("copies a built-in into an editable, non-default prompt", async () => {
    const source = await member.client.ok<Prompt>("query", "prompts.get", { uid: builtin(defaultBuiltinKey) });
    const newUid = crypto.randomUUID();
    const copy = await member.client.ok<Prompt>("mutate", "prompts.duplicate", { uid: source.uid, newUid });
    expect(copy).toMatchObject({
      uid: newUid,
      name: `${source.name} (copy)`,
      content: source.content,
      isBuiltin: false,
      isDefault: false,
      version: 1,
      workspaceId: owner.workspaceId,
    });
    const edited = await member.client.mutate<Prompt>("prompts.update", {
      uid: newUid,
      content: `${source.content}\nMore.`,
    });
    expect(edited.status).toBe(200);
    expect(edited.data.version).toBe(2);
    // The built-in itself is unchanged.
    expect((await member.client.ok<Prompt>("query", "prompts.get", { uid: source.uid })).content).toBe(source.content);
  });

  it("duplicating the default does not create a second default", async () => {
    const current = (await defaults())[0]!;
    const copy = await member.client.ok<Prompt>("mutate", "prompts.duplicate", {
      uid: current.uid,
      newUid: crypto.randomUUID(),
    });
    expect(copy.isDefault).toBe(false);
    expect(await defaults()).toHaveLength(1);
  });

  it("keeps the copy's name within the 120-character limit", async () => {
    const long = await createOk({ name: "n".repeat(120) });
    const copy = await member.client.ok<Prompt>("mutate", "prompts.duplicate", {
      uid: long.uid,
      newUid: crypto.randomUUID(),
    });
    expect(copy.name.length).toBeLessThanOrEqual(120);
  });

  it("a newUid already taken → 409; an unknown source → 404; a bad newUid → 400 naming newUid", async () => {
    const a = await createOk();
    const b = await createOk();
    expect((await member.client.mutate("prompts.duplicate", { uid: a.uid, newUid: b.uid })).status).toBe(409);
    expect(
      (await member.client.mutate("prompts.duplicate", { uid: crypto.randomUUID(), newUid: crypto.randomUUID() }))
        .status,
    ).toBe(404);
    const bad = await member.client.mutate("prompts.duplicate", { uid: a.uid, newUid: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toBe("newUid: newUid must be a UUID");
  });
});
