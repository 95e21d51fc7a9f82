import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashEmbedder } from "../embed/hash.ts";
import { search } from "../search.ts";
import { splitIdentifiersInText } from "../split-identifiers.ts";
import { createIndexCache } from "./index-cache.ts";
import { connect, dropIndex, replaceIndex, updateIndex, type ChunkRow, type Store } from "./index.ts";

let dir: string;
let uri: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-index-cache-"));
  uri = path.join(dir, "lancedb");
  store = await connect(uri);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const embedder = new HashEmbedder({ dims: 512 }).fit(["placeholder text"]);

function row(file: string, text: string): ChunkRow {
  return {
    id: `${file}#0`,
    file,
    language: "typescript",
    startLine: 1,
    endLine: 1,
    symbolPath: null,
    symbolKinds: [],
    text,
    searchText: splitIdentifiersInText(text, { keepOriginal: true }),
    contentHash: file,
    vector: embedder.embedOne(text),
  };
}

async function build(name: string, rows: ChunkRow[]) {
  await replaceIndex(store, name, { embedder: embedder.record(), embedderState: embedder.idfState(), rows });
}

const files = async (cache: ReturnType<typeof createIndexCache>, name: string, query: string) =>
  cache.use(name, async (index) =>
    index ? (await search(index, query, { mode: "fulltext" })).map((h) => h.file) : null,
  );

describe("index cache", () => {
  it("keeps an index open between requests, and follows updates, rebuilds and drops", async () => {
    const cache = createIndexCache(uri);
    try {
      await build("cached", [row("a.ts", "function alphaWidget() {}")]);
      const first = await cache.use("cached", async (i) => i);
      const again = await cache.use("cached", async (i) => i);
      expect(again).toBe(first); // the same open handle (and its query embedder)
      expect(await files(cache, "cached", "alpha")).toEqual(["a.ts"]);

      // An update moves the catalog's version: the next request sees the new rows.
      await updateIndex(store, "cached", {
        embedder: embedder.record(),
        removeFiles: [],
        rows: [row("b.ts", "function alphaGadget() {}")],
      });
      expect((await files(cache, "cached", "alpha"))!.sort()).toEqual(["a.ts", "b.ts"]);

      // A full rebuild makes a new table whose versions start over: never confused with the old one.
      await build("cached", [row("c.ts", "function alphaThing() {}")]);
      expect(await files(cache, "cached", "alpha")).toEqual(["c.ts"]);

      // Dropped: nothing is served, and the handle is let go.
      await dropIndex(store, "cached");
      expect(await files(cache, "cached", "alpha")).toBeNull();
      expect(cache.size()).toBe(0);
      expect(await cache.use("never-built", async (i) => i)).toBeNull();
    } finally {
      await cache.close();
    }
  });

  it("a request that started on the old version finishes on it while the update is served to the next", async () => {
    const cache = createIndexCache(uri);
    try {
      await build("busy", [row("a.ts", "function betaWidget() {}")]);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const slow = cache.use("busy", async (index) => {
        await held;
        return (await search(index!, "beta", { mode: "fulltext" })).map((h) => h.file);
      });
      await new Promise((r) => setTimeout(r, 20));
      await updateIndex(store, "busy", {
        embedder: embedder.record(),
        removeFiles: ["a.ts"],
        rows: [row("z.ts", "function betaOther() {}")],
      });
      expect(await files(cache, "busy", "beta")).toEqual(["z.ts"]);
      release();
      expect(await slow).toEqual(["a.ts"]); // its handle was not closed under it
    } finally {
      await cache.close();
    }
  });

  it("a request whose index is rebuilt and dropped under it runs again on the new one", async () => {
    const cache = createIndexCache(uri);
    try {
      await build("rebuilt", [row("a.ts", "function gammaWidget() {}")]);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let runs = 0;
      const slow = cache.use("rebuilt", async (index) => {
        runs++;
        if (runs === 1) await held;
        return (await search(index!, "gamma", { mode: "fulltext" })).map((h) => h.file);
      });
      await new Promise((r) => setTimeout(r, 20));
      await build("rebuilt", [row("z.ts", "function gammaOther() {}")]); // the old table is dropped
      release();
      expect(await slow).toEqual(["z.ts"]);
      expect(runs).toBe(2);
    } finally {
      await cache.close();
    }
  });

  it("closes the least recently used idle indexes beyond its limit, and refuses use after close", async () => {
    const cache = createIndexCache(uri, { maxIdle: 2 });
    for (const name of ["lru-1", "lru-2", "lru-3"]) {
      await build(name, [row("a.ts", `function ${name.replace("-", "")}() {}`)]);
      await cache.use(name, async () => undefined);
    }
    expect(cache.size()).toBe(2);
    await cache.close();
    await expect(cache.use("lru-1", async () => undefined)).rejects.toThrow(/closed/);
  });
});
