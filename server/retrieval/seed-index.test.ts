import { cpSync, mkdtempSync, mkdirSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LocalEmbedder } from "./embed/local.ts";
import { indexSnapshot, type SnapshotFile } from "./index-snapshot.ts";
import { search } from "./search.ts";
import { indexSnapshotSeeded } from "./seed-index.ts";
import { connect, openChunkIndex, type Store } from "./store/index.ts";

let dir: string;
let store: Store;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-seed-"));
  store = await connect(path.join(dir, "lancedb"));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

const fn = (name: string, body = "return 1;") => `export function ${name}(): number {\n  ${body}\n}\n`;

/** A source tree on disk: its root and its file list as the import hands it over. */
function tree(files: Record<string, string>, from?: string) {
  const root = path.join(dir, `root-${n++}`);
  if (from) cpSync(from, root, { recursive: true });
  else mkdirSync(root, { recursive: true });
  for (const [f, s] of Object.entries(files)) writeFileSync(path.join(root, f), s);
  const list = (): SnapshotFile[] =>
    readdirSync(root)
      .sort()
      .map((p) => ({ path: p, language: "typescript" }));
  return { root, list, remove: (f: string) => unlinkSync(path.join(root, f)) };
}

const STABLE = Object.fromEntries(
  ["ledger", "quota", "vault", "sprocket", "lantern", "harbor"].map((w) => [`${w}.ts`, fn(`${w}Keeper`)]),
);

/** The parent snapshot's index, and the child's tree: billing.ts rewritten, legacy.ts gone, coupons.ts new. */
async function parentAndChild(name: string) {
  const parent = tree({
    ...STABLE,
    "billing.ts": fn("computeInvoiceTotal", "return legacyRounding(42);"),
    "legacy.ts": fn("crumbleZephyr"),
  });
  await indexSnapshot(store, `${name}-parent`, parent.root, parent.list());
  const child = tree(
    { "billing.ts": fn("applyLoyaltyDiscount", "return tieredRebate(7);"), "coupons.ts": fn("redeemCouponCode") },
    parent.root,
  );
  child.remove("legacy.ts");
  return { parent, child };
}

async function files(name: string, query: string, mode: "fulltext" | "hybrid" = "fulltext") {
  const index = (await openChunkIndex(store, name))!;
  try {
    return (await search(index, query, { mode })).map((h) => h.file);
  } finally {
    index.close();
  }
}

async function hashes(name: string) {
  const index = (await openChunkIndex(store, name))!;
  try {
    return Object.fromEntries(await index.fileHashes());
  } finally {
    index.close();
  }
}

describe("indexSnapshotSeeded", () => {
  it("starts from the parent's index: the changed file's new code is found, its old code and removed files are not", async () => {
    const { child } = await parentAndChild("push");
    const built = await indexSnapshotSeeded(store, "push-child", child.root, child.list(), { seedFrom: "push-parent" });
    expect(built.seed).toMatchObject({ seeded: true });
    // Only the rewritten and the new file were chunked and embedded; the rest came with the copy.
    expect(built).toMatchObject({ full: false, changedFiles: 2, removedFiles: 1, unchangedFiles: 6 });

    expect(await files("push-child", "applyLoyaltyDiscount tieredRebate")).toContain("billing.ts");
    expect(await files("push-child", "legacyRounding")).toEqual([]);
    expect(await files("push-child", "crumbleZephyr")).toEqual([]);
    expect((await files("push-child", "redeem coupon code", "hybrid"))[0]).toBe("coupons.ts");
    expect((await files("push-child", "vault keeper", "hybrid"))[0]).toBe("vault.ts");

    // The same files and contents as a build from scratch of the child's tree.
    await indexSnapshot(store, "push-fresh", child.root, child.list());
    expect(await hashes("push-child")).toEqual(await hashes("push-fresh"));
    // The parent's index is its own: updating the copy left it as it was.
    expect(await files("push-parent", "legacyRounding")).toContain("billing.ts");
    expect(await files("push-parent", "crumbleZephyr")).toEqual(["legacy.ts"]);
    expect(await files("push-parent", "applyLoyaltyDiscount")).toEqual([]);
  });

  it("updates an index already there (an import run again) in place instead of copying over it", async () => {
    const { child } = await parentAndChild("again");
    await indexSnapshotSeeded(store, "again-child", child.root, child.list(), { seedFrom: "again-parent" });
    const built = await indexSnapshotSeeded(store, "again-child", child.root, child.list(), {
      seedFrom: "again-parent",
    });
    expect(built.seed).toBeUndefined();
    expect(built).toMatchObject({ full: false, changedFiles: 0, unchangedFiles: 8 });
    expect(await files("again-child", "applyLoyaltyDiscount")).toEqual(["billing.ts"]);
  });

  it("builds in full when there is no parent index to copy", async () => {
    const { child } = await parentAndChild("orphan");
    const built = await indexSnapshotSeeded(store, "orphan-child", child.root, child.list(), {
      seedFrom: "never-built",
    });
    expect(built.seed).toMatchObject({ seeded: false, reason: expect.stringMatching(/does not exist/) });
    expect(built).toMatchObject({ full: true, changedFiles: 8 });
    expect(await files("orphan-child", "applyLoyaltyDiscount")).toEqual(["billing.ts"]);
  });

  it("drops the copy and builds in full when updating it fails", async () => {
    const { child } = await parentAndChild("broken");
    vi.spyOn(LocalEmbedder.prototype, "embed").mockRejectedValueOnce(new Error("embedder crashed"));
    const built = await indexSnapshotSeeded(store, "broken-child", child.root, child.list(), {
      seedFrom: "broken-parent",
    });
    expect(built.seed).toMatchObject({ seeded: false, reason: expect.stringMatching(/embedder crashed/) });
    expect(built.full).toBe(true);
    expect(await files("broken-child", "applyLoyaltyDiscount")).toEqual(["billing.ts"]);
    expect(await files("broken-child", "legacyRounding")).toEqual([]);
    // Only the full build's table is left; the failed copy is gone.
    expect((await store.db.tableNames()).filter((t) => t.startsWith("broken-child--"))).toHaveLength(1);
  });

  it("refits in full when most of the tree changed since the parent, as a re-index would", async () => {
    const { child } = await parentAndChild("drift");
    for (const f of Object.keys(STABLE).slice(0, 4)) writeFileSync(path.join(child.root, f), fn(`${f}Rewritten`));
    const built = await indexSnapshotSeeded(store, "drift-child", child.root, child.list(), {
      seedFrom: "drift-parent",
    });
    expect(built).toMatchObject({ full: true, seed: { seeded: true } });
    expect(await hashes("drift-child")).toEqual(
      await indexSnapshot(store, "drift-fresh", child.root, child.list()).then(() => hashes("drift-fresh")),
    );
  });
});
