import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LocalEmbedder } from "./embed/local.ts";
import { indexSnapshot, type SnapshotFile } from "./index-snapshot.ts";
import { search } from "./search.ts";
import { connect, openChunkIndex, replaceIndex, updateIndex, type Store } from "./store/index.ts";
import { deleteRowsBehindCatalog } from "./store/testing.ts";

let dir: string;
let store: Store;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-index-"));
  store = await connect(path.join(dir, "lancedb"));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

/** A fresh source tree: name → TypeScript source. */
function tree(files: Record<string, string>): {
  root: string;
  list: () => SnapshotFile[];
  write: (f: string, s: string) => void;
  remove: (f: string) => void;
} {
  const root = path.join(dir, `root-${n++}`);
  const paths = new Set<string>();
  const write = (f: string, s: string) => {
    mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    writeFileSync(path.join(root, f), s);
    paths.add(f);
  };
  const remove = (f: string) => {
    unlinkSync(path.join(root, f));
    paths.delete(f);
  };
  for (const [f, s] of Object.entries(files)) write(f, s);
  return { root, list: () => [...paths].sort().map((p) => ({ path: p, language: "typescript" })), write, remove };
}

const fn = (name: string, body = "return 1;") => `export function ${name}(): number {\n  ${body}\n}\n`;

/** Texts passed to LocalEmbedder.embed (the default embedder), per call. */
function countEmbeds() {
  const calls: string[][] = [];
  const original = LocalEmbedder.prototype.embed;
  vi.spyOn(LocalEmbedder.prototype, "embed").mockImplementation(async function (this: LocalEmbedder, batch: string[]) {
    calls.push(batch);
    return original.call(this, batch);
  });
  return { texts: () => calls.flat(), calls };
}

describe("indexSnapshot", () => {
  it("re-embeds only changed files and removes deleted ones", async () => {
    const stable = Object.fromEntries(
      ["ledger", "quota", "vault", "sprocket"].map((w) => [`keep/${w}.ts`, fn(`${w}Keeper`)]),
    );
    const t = tree({ "a.ts": fn("alphaHandler"), "b.ts": fn("betaHandler"), "c.ts": fn("gammaHandler"), ...stable });
    const first = await indexSnapshot(store, "inc", t.root, t.list());
    expect(first).toMatchObject({ full: true, files: 7, changedFiles: 7, removedFiles: 0 });
    expect(first.rows).toBe(first.chunksEmbedded);

    const embeds = countEmbeds();
    const same = await indexSnapshot(store, "inc", t.root, t.list());
    expect(same).toMatchObject({
      full: false,
      changedFiles: 0,
      unchangedFiles: 7,
      chunksEmbedded: 0,
      rows: first.rows,
    });
    expect(embeds.texts()).toEqual([]);

    t.write("b.ts", fn("betaHandlerRenamed"));
    t.remove("c.ts");
    t.write("d.ts", fn("deltaHandler"));
    const second = await indexSnapshot(store, "inc", t.root, t.list());
    expect(second).toMatchObject({ full: false, changedFiles: 2, removedFiles: 1, unchangedFiles: 5 });
    const embedded = embeds.texts();
    expect(embedded.some((s) => s.includes("betaHandlerRenamed"))).toBe(true);
    expect(embedded.some((s) => s.includes("deltaHandler"))).toBe(true);
    expect(embedded.some((s) => s.includes("alphaHandler") || s.includes("gammaHandler"))).toBe(false);

    const index = (await openChunkIndex(store, "inc"))!;
    try {
      expect([...(await index.fileHashes()).keys()].sort()).toEqual([
        "a.ts",
        "b.ts",
        "d.ts",
        ...Object.keys(stable).sort(),
      ]);
      expect(await search(index, "gamma", { mode: "fulltext" })).toEqual([]);
      expect((await search(index, "renamed", { mode: "hybrid" }))[0]!.file).toBe("b.ts");
      // The old version of b.ts is gone, not duplicated.
      expect((await search(index, "beta", { mode: "fulltext" })).map((h) => h.file)).toEqual(["b.ts"]);
    } finally {
      index.close();
    }
  });

  it("refits the IDF in a full rebuild when most of the corpus changed", async () => {
    const t = tree({
      "a.ts": fn("alphaHandler"),
      "b.ts": fn("betaHandler"),
      "c.ts": fn("gammaHandler"),
      "d.ts": fn("deltaHandler"),
    });
    await indexSnapshot(store, "drift", t.root, t.list());
    const before = (await openChunkIndex(store, "drift"))!;
    const stateBefore = JSON.stringify(before.embedderState);
    before.close();

    t.write("a.ts", fn("alphaHandlerV2"));
    expect(await indexSnapshot(store, "drift", t.root, t.list())).toMatchObject({ full: false, changedFiles: 1 });

    // Three of five files (old and new) changed, added or gone: over half, so everything is refitted.
    t.write("b.ts", fn("betaRewritten"));
    t.remove("c.ts");
    t.write("e.ts", fn("epsilonAdded"));
    const r = await indexSnapshot(store, "drift", t.root, t.list());
    expect(r).toMatchObject({ full: true, files: 4, changedFiles: 4 });
    const after = (await openChunkIndex(store, "drift"))!;
    try {
      expect(JSON.stringify(after.embedderState)).not.toBe(stateBefore);
      expect([...(await after.fileHashes()).keys()].sort()).toEqual(["a.ts", "b.ts", "d.ts", "e.ts"]);
      expect((await search(after, "epsilon added", { mode: "hybrid" }))[0]!.file).toBe("e.ts");
    } finally {
      after.close();
    }
  });

  it("a rebuild that throws midway leaves the previous index searchable", async () => {
    const t = tree({ "a.ts": fn("stableWidget"), "b.ts": fn("flakyWidget") });
    await indexSnapshot(store, "fail", t.root, t.list());
    t.write("b.ts", fn("brokenWidget"));
    t.write("c.ts", fn("newWidget"));

    // Embedding fails (incremental path): nothing was written.
    vi.spyOn(LocalEmbedder.prototype, "embed").mockRejectedValueOnce(new Error("embedder crashed"));
    await expect(indexSnapshot(store, "fail", t.root, t.list())).rejects.toThrow(/embedder crashed/);
    // A full rebuild fails after the new table already holds a batch of rows (the second batch has a
    // row LanceDB rejects): the catalog still points at the old table, and the new one is dropped.
    const old = (await openChunkIndex(store, "fail"))!;
    const row = {
      id: "r",
      file: "z.ts",
      language: "typescript",
      startLine: 1,
      endLine: 1,
      symbolPath: null,
      symbolKinds: [],
      text: "z",
      searchText: "z",
      contentHash: "h",
      vector: new Float32Array(old.embedder.dims),
    };
    const rows = Array.from({ length: 2_001 }, (_, i) => ({ ...row, id: `r${i}` }));
    rows[2_000] = { ...row, id: null as unknown as string };
    await expect(
      replaceIndex(store, "fail", { embedder: old.embedder, embedderState: old.embedderState, rows }),
    ).rejects.toThrow();
    old.close();
    expect((await store.db.tableNames()).filter((x) => x.startsWith("fail--"))).toHaveLength(1);

    const index = (await openChunkIndex(store, "fail"))!;
    try {
      expect((await search(index, "flaky widget", { mode: "hybrid" }))[0]!.file).toBe("b.ts");
      expect(await search(index, "broken", { mode: "fulltext" })).toEqual([]);
      expect([...(await index.fileHashes()).keys()].sort()).toEqual(["a.ts", "b.ts"]);
    } finally {
      index.close();
    }
    // No orphan tables are left behind once a rebuild succeeds.
    await indexSnapshot(store, "fail", t.root, t.list(), { full: true });
    const tables = (await store.db.tableNames()).filter((x) => x.startsWith("fail--"));
    expect(tables).toHaveLength(1);
  });

  it("a store write that fails after deleting rows is rolled back", async () => {
    const t = tree({ "a.ts": fn("keptFunction"), "b.ts": fn("otherFunction") });
    await indexSnapshot(store, "rollback", t.root, t.list());
    const before = (await openChunkIndex(store, "rollback"))!;
    const record = before.embedder;
    before.close();
    // Deleting a.ts's rows succeeds, then the add fails (a wrong-sized vector reaches LanceDB).
    const bad = {
      id: "x",
      file: "a.ts",
      language: "typescript",
      startLine: 1,
      endLine: 1,
      symbolPath: null,
      symbolKinds: [],
      text: "x",
      searchText: "x",
      contentHash: "h",
      vector: new Float32Array(record.dims),
    };
    await expect(
      updateIndex(store, "rollback", {
        embedder: record,
        removeFiles: ["a.ts"],
        rows: [bad, { ...bad, id: "y", vector: new Float32Array(3) }],
      }),
    ).rejects.toThrow(/3-dim vector/);
    const index = (await openChunkIndex(store, "rollback"))!;
    try {
      expect((await search(index, "kept", { mode: "fulltext" }))[0]!.file).toBe("a.ts");
    } finally {
      index.close();
    }
  });

  it("readers stay on the last complete version when a writer died midway", async () => {
    const t = tree({ "a.ts": fn("survivorFunction"), "b.ts": fn("bystanderFunction") });
    await indexSnapshot(store, "crash", t.root, t.list());
    // Simulate a crash: rows deleted from the physical table, catalog never moved.
    await deleteRowsBehindCatalog(store, "crash", "file = 'a.ts'");

    const index = (await openChunkIndex(store, "crash"))!;
    try {
      expect((await search(index, "survivor", { mode: "fulltext" }))[0]!.file).toBe("a.ts");
    } finally {
      index.close();
    }
    // The next incremental write rolls the table back first, so nothing is lost.
    t.write("b.ts", fn("bystanderChanged"));
    const r = await indexSnapshot(store, "crash", t.root, t.list());
    expect(r).toMatchObject({ full: false, changedFiles: 1 });
    const after = (await openChunkIndex(store, "crash"))!;
    try {
      expect((await search(after, "survivor", { mode: "fulltext" }))[0]!.file).toBe("a.ts");
    } finally {
      after.close();
    }
  });

  it("an open index keeps reading its own version by row address while a writer deletes and compacts", async () => {
    const names: Record<string, string> = {
      "a.ts": "survivorFunction",
      "b.ts": "harborLantern",
      "c.ts": "meadowQuartz",
      "d.ts": "velvetCinder",
    };
    const t = tree(Object.fromEntries(Object.entries(names).map(([f, n]) => [f, fn(n)])));
    await indexSnapshot(store, "pinned", t.root, t.list());
    const index = (await openChunkIndex(store, "pinned"))!;
    try {
      // Compaction rewrites the remaining rows: their addresses in the new version move.
      await deleteRowsBehindCatalog(store, "pinned", "file = 'a.ts' OR file = 'b.ts'", { optimize: true });

      // Full text matches one chunk, so vector-only hits fill the page and are read by address.
      const hits = await search(index, "survivor", { mode: "hybrid", k: 4 });
      expect(hits[0]!.file).toBe("a.ts");
      expect(hits.length).toBe(4);
      expect(hits.slice(1).every((h) => h.scores.fulltext === undefined && h.scores.vector !== undefined)).toBe(true);
      // Every row read is the one its address named in the pinned version.
      for (const h of hits) expect(h.snippet).toContain(names[h.file]!);
    } finally {
      index.close();
    }
  });

  it("an index of the older hash embedder keeps answering, and the next re-index rebuilds it with the local one, saying why", async () => {
    const t = tree({ "a.ts": fn("legacyWidget"), "b.ts": fn("otherGadget") });
    const first = await indexSnapshot(store, "legacy", t.root, t.list(), { dims: 1024 });
    expect(first.rebuilt).toBeUndefined();
    const old = (await openChunkIndex(store, "legacy"))!;
    try {
      expect(old.embedder.name).toBe("hash");
      expect((await search(old, "legacy widget", { mode: "hybrid" }))[0]!.file).toBe("a.ts");
    } finally {
      old.close();
    }
    const again = await indexSnapshot(store, "legacy", t.root, t.list());
    expect(again.full).toBe(true);
    expect(again.rebuilt).toMatch(/built with the hash embedder.*rebuilt in full with the local embedder/);
    const index = (await openChunkIndex(store, "legacy"))!;
    try {
      expect(index.embedder.name).toBe("local");
      expect((await search(index, "legacy widget", { mode: "hybrid" }))[0]!.file).toBe("a.ts");
    } finally {
      index.close();
    }
    // Up to date now: the next re-index is an update, with no note.
    expect((await indexSnapshot(store, "legacy", t.root, t.list())).rebuilt).toBeUndefined();
  });

  it("a change of dimensions rebuilds in full and skips unreadable files with a reason", async () => {
    const t = tree({ "a.ts": fn("dimsFunction") });
    await indexSnapshot(store, "dims", t.root, t.list());
    const r = await indexSnapshot(
      store,
      "dims",
      t.root,
      [...t.list(), { path: "missing.ts", language: "typescript" }],
      { dims: 512 },
    );
    expect(r).toMatchObject({ full: true, skipped: [{ path: "missing.ts", reason: "ENOENT" }] });
    const index = (await openChunkIndex(store, "dims"))!;
    try {
      expect(index.embedder.dims).toBe(512);
      expect((await search(index, "dims", { mode: "vector" }))[0]!.file).toBe("a.ts");
    } finally {
      index.close();
    }
  });

  it("builds an ANN vector index above the size threshold, and search still finds the right chunk", async () => {
    // Forty files that differ in real words, not only in a number: names like handler4Name and
    // handler17Name embed almost alike, and 8-bit quantization may then rank either first.
    const words =
      "apple birch cobalt dune ember fjord granite harbor iris juniper kelp lantern meadow nectar onyx pepper quartz raven saffron tundra umber velvet walnut xenon yarrow zephyr anchor bramble cinder delta falcon glacier hollow indigo jasper kestrel lotus marble nimbus orchid".split(
        " ",
      );
    const t = tree(Object.fromEntries(words.map((w, i) => [`f${i}.ts`, fn(`${w}Handler`, `return "${w} ${w}";`)])));
    const small = await indexSnapshot(store, "ann", t.root, t.list());
    expect(small.plan.vector).toBe("exact");
    const big = await indexSnapshot(store, "ann", t.root, t.list(), { full: true, annThreshold: 16 });
    expect(big.plan.vector).toBe("ivf_rq");
    const index = (await openChunkIndex(store, "ann"))!;
    try {
      expect((await search(index, "ravenHandler raven", { mode: "vector", k: 3 }))[0]!.file).toBe("f17.ts");
    } finally {
      index.close();
    }
  });
});
