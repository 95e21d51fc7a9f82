import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb } from "../../test/helpers/db.ts";
import type { Db } from "../db/client.ts";
import { uuid5 } from "../lib/uuid5.ts";
import { builtinUid, loadBuiltinPrompts, seedAllWorkspaces, seedBuiltinPrompts } from "./builtins.ts";

const manifestPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../prompts/review/index.json");
const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
  prompts: { key: string; name: string; file: string; default?: boolean }[];
};
const defaultKey = manifest.prompts.find((p) => p.default)!.key;

let db: Db;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openMigratedDb());
});
afterAll(async () => {
  await close?.();
});

let n = 0;
const newWorkspace = async () => (await db.workspace.create({ data: { name: `Workspace ${++n}` } })).id;
const builtinsOf = (workspaceId: string) =>
  db.prompt.findMany({ where: { workspaceId, isBuiltin: true }, orderBy: { builtinKey: "asc" } });
const defaultsOf = (workspaceId: string) => db.prompt.findMany({ where: { workspaceId, isDefault: true } });

describe("loadBuiltinPrompts", () => {
  it("reads every prompt of prompts/review/index.json with its file's text", () => {
    const builtins = loadBuiltinPrompts();
    expect(builtins.map((b) => b.key)).toEqual(manifest.prompts.map((p) => p.key));
    expect(builtins.map((b) => b.name)).toEqual(manifest.prompts.map((p) => p.name));
    for (const [i, b] of builtins.entries()) {
      const file = path.join(path.dirname(manifestPath), manifest.prompts[i]!.file);
      expect(b.content).toBe(readFileSync(file, "utf8").trim());
      expect(b.content.length).toBeGreaterThan(0);
    }
    expect(builtins.filter((b) => b.isDefault).map((b) => b.key)).toEqual([defaultKey]);
  });
});

describe("builtinUid", () => {
  it("is deterministic per (workspace, key) and differs across workspaces and keys", () => {
    expect(builtinUid("ws-a", "general-review")).toBe(builtinUid("ws-a", "general-review"));
    expect(builtinUid("ws-a", "general-review")).toBe(uuid5("prompt:ws-a:general-review"));
    expect(builtinUid("ws-b", "general-review")).not.toBe(builtinUid("ws-a", "general-review"));
    expect(builtinUid("ws-a", "security-audit")).not.toBe(builtinUid("ws-a", "general-review"));
  });
});

describe("seedBuiltinPrompts", () => {
  it("inserts each built-in once, with deterministic ids and the manifest's default", async () => {
    const ws = await newWorkspace();
    const result = await seedBuiltinPrompts(db, ws);
    expect(result).toEqual({ inserted: manifest.prompts.length, updated: 0 });

    const rows = await builtinsOf(ws);
    expect(rows.map((r) => r.builtinKey).sort()).toEqual(manifest.prompts.map((p) => p.key).sort());
    for (const row of rows) {
      expect(row.uid).toBe(builtinUid(ws, row.builtinKey!));
      expect(row.isBuiltin).toBe(true);
      expect(row.version).toBe(1);
      expect(row.isDefault).toBe(row.builtinKey === defaultKey);
    }
    expect((await defaultsOf(ws)).map((p) => p.builtinKey)).toEqual([defaultKey]);
  });

  it("seeding again (a restart) inserts 0 and leaves exactly one copy of each", async () => {
    const ws = await newWorkspace();
    await seedBuiltinPrompts(db, ws);
    const before = await builtinsOf(ws);

    expect(await seedBuiltinPrompts(db, ws)).toEqual({ inserted: 0, updated: 0 });
    expect(await seedBuiltinPrompts(db, ws)).toEqual({ inserted: 0, updated: 0 });

    const after = await builtinsOf(ws);
    expect(after).toHaveLength(manifest.prompts.length);
    // Nothing was rewritten: same rows, same versions, same timestamps.
    expect(after.map((r) => [r.id, r.uid, r.version, r.updatedAt.getTime()])).toEqual(
      before.map((r) => [r.id, r.uid, r.version, r.updatedAt.getTime()]),
    );
    expect(await defaultsOf(ws)).toHaveLength(1);
  });

  it("seeding concurrently (two processes starting together) still leaves one copy of each", async () => {
    const ws = await newWorkspace();
    const results = await Promise.all([
      seedBuiltinPrompts(db, ws),
      seedBuiltinPrompts(db, ws),
      seedBuiltinPrompts(db, ws),
    ]);
    expect(results.every((r) => r.updated === 0)).toBe(true);
    expect(await builtinsOf(ws)).toHaveLength(manifest.prompts.length);
    expect(await defaultsOf(ws)).toHaveLength(1);
  });

  it("does not make a built-in the default when the workspace already has one", async () => {
    const ws = await newWorkspace();
    const mine = await db.prompt.create({
      data: { uid: crypto.randomUUID(), workspaceId: ws, name: "Mine", content: "Review it my way.", isDefault: true },
    });
    expect((await seedBuiltinPrompts(db, ws)).inserted).toBe(manifest.prompts.length);
    const defaults = await defaultsOf(ws);
    expect(defaults.map((p) => p.id)).toEqual([mine.id]);
    expect((await builtinsOf(ws)).every((p) => !p.isDefault)).toBe(true);
  });

  it("a new wording of a built-in updates it in place and bumps its version", async () => {
    const ws = await newWorkspace();
    await seedBuiltinPrompts(db, ws);
    const changed = loadBuiltinPrompts().map((b) =>
      b.key === "security-audit" ? { ...b, name: `${b.name} v2`, content: `${b.content}\n\nAlso check secrets.` } : b,
    );
    expect(await seedBuiltinPrompts(db, ws, changed)).toEqual({ inserted: 0, updated: 1 });
    const row = await db.prompt.findUniqueOrThrow({ where: { uid: builtinUid(ws, "security-audit") } });
    expect(row.version).toBe(2);
    expect(row.content).toMatch(/Also check secrets\.$/);
    expect(row.name).toMatch(/ v2$/);
    expect(await seedBuiltinPrompts(db, ws, changed)).toEqual({ inserted: 0, updated: 0 });
    expect(await builtinsOf(ws)).toHaveLength(manifest.prompts.length);
  });

  it("a built-in added to the manifest later is inserted without touching the default", async () => {
    const ws = await newWorkspace();
    await seedBuiltinPrompts(db, ws);
    const more = [
      ...loadBuiltinPrompts(),
      { key: "docs-review", name: "Docs review", content: "Check the docs.", isDefault: true },
    ];
    expect(await seedBuiltinPrompts(db, ws, more)).toEqual({ inserted: 1, updated: 0 });
    expect((await defaultsOf(ws)).map((p) => p.builtinKey)).toEqual([defaultKey]);
  });
});

describe("seedAllWorkspaces", () => {
  it("seeds every workspace, and a second run (restart) inserts nothing", async () => {
    const a = await newWorkspace();
    const b = await newWorkspace();
    await seedAllWorkspaces(db);
    const second = await seedAllWorkspaces(db);
    expect(second).toEqual({ inserted: 0, updated: 0 });
    for (const ws of [a, b]) {
      expect(await builtinsOf(ws)).toHaveLength(manifest.prompts.length);
      expect(await defaultsOf(ws)).toHaveLength(1);
    }
    // Across all workspaces of this database: no (workspace, built-in) pair exists twice.
    const groups = await db.prompt.groupBy({
      by: ["workspaceId", "builtinKey"],
      where: { isBuiltin: true },
      _count: { _all: true },
    });
    expect(groups.length).toBeGreaterThanOrEqual((await db.workspace.count()) * manifest.prompts.length);
    expect(groups.filter((g) => g._count._all !== 1)).toEqual([]);
  });
});
