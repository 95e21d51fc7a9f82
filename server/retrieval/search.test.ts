import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashEmbedder } from "./embed/hash.ts";
import { EmbedderMismatchError } from "./embed/types.ts";
import { indexSnapshot, type SnapshotFile } from "./index-snapshot.ts";
import { LocalEmbedder } from "./embed/local.ts";
import { FUSION } from "./fusion.ts";
import { search, type SearchOptions } from "./search.ts";
import { connect, openChunkIndex, type ChunkIndex, type Store } from "./store/index.ts";

const FILES: Record<string, string> = {
  "src/config/loader.ts": `import { readFileSync } from "node:fs";

/** Reads the YAML settings file and validates it. */
export function parseConfigFile(filePath: string): Record<string, unknown> {
  const raw = readFileSync(filePath, "utf8");
  return JSON.parse(raw) as Record<string, unknown>;
}
`,
  "src/net/retry.ts": `/** Retries a request with exponential backoff. */
export class RetryPolicy {
  constructor(private readonly maxRetryCount: number) {}

  nextDelayMs(attempt: number): number {
    return Math.min(30_000, 2 ** attempt * 100);
  }
}
`,
  "src/auth/session.ts": `export interface SessionToken {
  userId: string;
  expiresAt: number;
}

export function verifySessionToken(token: SessionToken, now: number): boolean {
  return token.expiresAt > now;
}
`,
  "scripts/cache.py": `class LruCache:
    """A least recently used cache with a fixed capacity."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.items = {}

    def evict_oldest(self):
        oldest = next(iter(self.items))
        del self.items[oldest]
`,
  "docs/guide.md": `# Guide

The server reads its settings from a configuration file at startup.

## Конфигурация

Файл конфигурации задаёт порт сервера и путь к базе данных.
`,
  "docs/zh.md": `# 检索说明

本系统使用混合检索增强生成，同时支持向量搜索和全文搜索。
`,
  "src/it's/quote.ts": `export const quotedPathMarker = "marker";\nexport const y = quotedPathMarker.length;\n`,
};

const LANG: Record<string, string> = { ".ts": "typescript", ".py": "python", ".md": "markdown" };

let dir: string;
let store: Store;
let index: ChunkIndex;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "argus-search-"));
  const root = path.join(dir, "src-root");
  const files: SnapshotFile[] = [];
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
    files.push({ path: rel, language: LANG[path.extname(rel)]! });
  }
  store = await connect(path.join(dir, "lancedb"));
  await indexSnapshot(store, "snap-1", root, files);
  index = (await openChunkIndex(store, "snap-1"))!;
});

afterAll(() => {
  index?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = async (q: string, o: SearchOptions = {}) => (await search(index, q, o)).map((r) => r.file);

describe("search", () => {
  it("full text finds a word inside a compound identifier", async () => {
    const hits = await search(index, "config", { mode: "fulltext" });
    expect(hits[0]!.file).toBe("src/config/loader.ts");
    expect(hits[0]!.snippet).toContain("parseConfigFile");
    expect(hits[0]!.scores.fulltext).toBeGreaterThan(0);
    expect(hits[0]!.scores.vector).toBeUndefined();
    // And the exact compound name works as one term.
    expect(await files("parseConfigFile", { mode: "fulltext", k: 1 })).toEqual(["src/config/loader.ts"]);
  });

  it("vector search ranks the chunk sharing the query's identifiers first", async () => {
    const hits = await search(index, "retry delay backoff", { mode: "vector" });
    expect(hits[0]).toMatchObject({ file: "src/net/retry.ts", symbolPath: "RetryPolicy" });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.scores.vector).toBe(hits[0]!.score);
  });

  it("hybrid is at least as good as either mode on a small hand-made set (MRR)", async () => {
    const gold: [string, string][] = [
      ["parse config", "src/config/loader.ts"],
      ["exponential backoff retry", "src/net/retry.ts"],
      ["verify session token expiry", "src/auth/session.ts"],
      ["evict oldest cache entry", "scripts/cache.py"],
      ["settings configuration startup", "docs/guide.md"],
    ];
    const mrr = async (mode: "vector" | "fulltext" | "hybrid") => {
      let sum = 0;
      for (const [q, want] of gold) {
        const rank = (await files(q, { mode, k: 10 })).indexOf(want);
        sum += rank < 0 ? 0 : 1 / (rank + 1);
      }
      return sum / gold.length;
    };
    const [v, t, h] = [await mrr("vector"), await mrr("fulltext"), await mrr("hybrid")];
    expect(h).toBeGreaterThanOrEqual(Math.max(v, t));
    expect(h).toBeGreaterThan(0.8);
  });

  it("hybrid results carry both scores and the fused score", async () => {
    const [top] = await search(index, "parseConfigFile", { mode: "hybrid" });
    expect(top!.file).toBe("src/config/loader.ts");
    expect(top!.scores.vector).toBeGreaterThan(0);
    expect(top!.scores.fulltext).toBeGreaterThan(0);
    // Mostly code (the code profile): the page is re-ordered by fused score and relevance, and a
    // hit's score is its share of the page's best fused score plus the weighted relevance
    // (fusion.ts rerankByRelevance) plus the weighted translation score (text/code-terms.ts), 1 for a
    // hit with every query term; the top hit here is first in both.
    expect(index.embedder.params.profile).toBe("code");
    expect(top!.score).toBeCloseTo(1 + FUSION.code.rerank.weight * top!.relevance + FUSION.code.rerank.translation, 2);
    expect(top).toMatchObject({ startLine: expect.any(Number), endLine: expect.any(Number) });
    // The snippet is cut around the best line; snippetStartLine says where it starts in the file.
    expect(FILES["src/config/loader.ts"]!.split("\n")[top!.snippetStartLine - 1]).toBe(top!.snippet.split("\n")[0]);
    expect(top!.snippet).toContain("parseConfigFile");
  });

  describe("relevance", () => {
    it("labels a hit that answers the query strong and says so in every mode", async () => {
      for (const mode of ["hybrid", "fulltext", "vector"] as const) {
        const [top] = await search(index, "retry a request with exponential backoff", { mode });
        expect(top!.file, mode).toBe("src/net/retry.ts");
        expect(top!.match, mode).toBe("strong");
        expect(top!.relevance, mode).toBeGreaterThan(0.5);
      }
    });

    it("a query about nothing in the code gets only weak hits, ranked below a real one", async () => {
      const nonsense = await search(index, "best pizza dough recipe with file", { mode: "hybrid" });
      expect(nonsense.length).toBeGreaterThan(0);
      expect(nonsense.every((h) => h.match === "weak")).toBe(true);
      const [real] = await search(index, "verify the session token", { mode: "hybrid" });
      expect(real!.file).toBe("src/auth/session.ts");
      expect(real!.relevance).toBeGreaterThan(Math.max(...nonsense.map((h) => h.relevance)));
    });

    it("question words do not decide the ranking, and a query of only them still searches", async () => {
      const [top] = await search(index, "how do I evict the oldest item from the cache", { mode: "hybrid" });
      expect(top!.file).toBe("scripts/cache.py");
      expect((await search(index, "where is it", { mode: "fulltext" })).length).toBeGreaterThanOrEqual(0);
    });

    it("a code synonym finds what the query word does not name (cookie → session)", async () => {
      // No chunk says "cookie": without the synonym full text would find nothing.
      expect(await files("cookie", { mode: "fulltext" })).toEqual(["src/auth/session.ts"]);
    });
  });

  describe("filters", () => {
    it("path glob", async () => {
      expect(
        new Set(await files("server", { mode: "fulltext", filters: { pathGlob: "src/**" } })).has("docs/guide.md"),
      ).toBe(false);
      const md = await files("settings", { mode: "hybrid", filters: { pathGlob: "*.md" } });
      expect(md[0]).toBe("docs/guide.md");
      expect(md.every((f) => f.endsWith(".md"))).toBe(true);
      expect(await files("settings", { mode: "vector", filters: { pathGlob: "docs/*.txt" } })).toEqual([]);
    });

    it("language", async () => {
      const hits = await files("cache capacity config session", { mode: "hybrid", filters: { language: "python" } });
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.every((f) => f.endsWith(".py"))).toBe(true);
    });

    it("symbol kind", async () => {
      const classes = await search(index, "retry cache session config", {
        mode: "fulltext",
        filters: { symbolKind: "class" },
      });
      expect(new Set(classes.map((h) => h.file))).toEqual(new Set(["src/net/retry.ts", "scripts/cache.py"]));
      const ifaces = await files("session", { mode: "vector", filters: { symbolKind: "interface" } });
      expect(ifaces).toEqual(["src/auth/session.ts"]);
    });

    it("values with quotes are data, not SQL", async () => {
      expect(await files("marker", { mode: "fulltext", filters: { pathGlob: "src/it's/*.ts" } })).toEqual([
        "src/it's/quote.ts",
      ]);
      expect(await files("marker", { mode: "fulltext", filters: { language: "x' OR '1'='1" } })).toEqual([]);
    });
  });

  describe("bad input", () => {
    it("refuses an empty or punctuation-only query", async () => {
      await expect(search(index, "   ")).rejects.toThrow(/empty/);
      await expect(search(index, "(){};")).rejects.toThrow(/no letters or digits/);
    });

    it("refuses a 100 KB query with its size", async () => {
      await expect(search(index, "x".repeat(100 * 1024))).rejects.toThrow(/102,400 characters.*limit is 8,192/);
    });

    it("refuses bad options", async () => {
      await expect(search(index, "config", { k: 0 })).rejects.toThrow(/k/);
      await expect(search(index, "config", { mode: "fuzzy" as "vector" })).rejects.toThrow(/mode/);
    });

    it("refuses a query of only common words, saying why", async () => {
      for (const mode of ["fulltext", "vector", "hybrid"] as const)
        await expect(search(index, "the of and", { mode })).rejects.toThrow(
          /only common words \(the, of, and\).*Add a word/,
        );
    });

    it("a single character: full text finds it, the vector leg (which has no term for it) returns nothing", async () => {
      const hits = await search(index, "y", { mode: "fulltext" });
      expect(hits.map((h) => h.file)).toEqual(["src/it's/quote.ts"]);
      expect(await search(index, "y", { mode: "vector" })).toEqual([]);
      expect((await search(index, "y", { mode: "hybrid" })).map((h) => h.file)).toEqual(["src/it's/quote.ts"]);
    });

    it("8 KB of pasted code finds where it came from, in every mode", async () => {
      let pasted = "";
      while (pasted.length < 8_000) pasted += `${FILES["src/net/retry.ts"]}\n`;
      pasted = pasted.slice(0, 8_192);
      for (const mode of ["fulltext", "vector", "hybrid"] as const)
        expect((await files(pasted, { mode }))[0]).toBe("src/net/retry.ts");
    });

    it("finds Chinese text by a word inside a longer run (character pairs), in every mode", async () => {
      for (const mode of ["fulltext", "vector", "hybrid"] as const) {
        expect((await files("向量搜索", { mode }))[0]).toBe("docs/zh.md");
        expect((await files("混合检索", { mode }))[0]).toBe("docs/zh.md");
      }
    });

    it("finds text in another script (Cyrillic) in every mode", async () => {
      for (const mode of ["fulltext", "vector", "hybrid"] as const)
        expect((await files("конфигурации сервера порт", { mode }))[0]).toBe("docs/guide.md");
    });

    it("refuses a query embedder other than the index's", async () => {
      const other = new HashEmbedder({ dims: 512 });
      await expect(search(index, "config", { mode: "vector", embedder: other })).rejects.toBeInstanceOf(
        EmbedderMismatchError,
      );
      // Same family and dims but not fitted on this index: another vector space too.
      await expect(search(index, "config", { mode: "hybrid", embedder: new LocalEmbedder() })).rejects.toThrow(
        /different parameters or fitted state/,
      );
      // Full text needs no embedder.
      expect((await search(index, "config", { mode: "fulltext", embedder: other })).length).toBeGreaterThan(0);
    });
  });
});
