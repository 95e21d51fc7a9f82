/**
 * The openai and transformers embedders through the real store and search: an index built with one
 * is queried with the same embedder rebuilt from the index's record plus settings, and refused with
 * any other. Also the build-side decision (changing the embedder re-indexes) and the settings bridge.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fusionFor } from "../fusion.ts";
import { FALLBACK_STRONG_AT } from "../relevance.ts";
import { search } from "../search.ts";
import { splitIdentifiersInText } from "../split-identifiers.ts";
import { connect, openChunkIndex, replaceIndex, type ChunkRow, type Store } from "../store/index.ts";
import { embedderForFullBuild, embedderChanged } from "./for-build.ts";
import { embedderFromRecord } from "./from-record.ts";
import { LocalEmbedder } from "./local.ts";
import { HashEmbedder } from "./hash.ts";
import { OpenAIEmbedder } from "./openai.ts";
import {
  createEmbedderFromSettings,
  embedderEnvShape,
  embedderSettingsFromEnv,
  type EmbedderSettingsInput,
} from "./settings.ts";
import { startEmbeddingsServer, type EmbeddingsServer } from "./testing/embeddings-server.ts";
import { writeTinyModel } from "./testing/tiny-model.ts";
import { TransformersEmbedder } from "./transformers.ts";
import { EmbedderMismatchError, type Embedder } from "./types.ts";
import { z } from "zod";

const DOCS = [
  { file: "db/query.ts", text: "run the sql query and join each table row" },
  { file: "net/client.ts", text: "the http client sends a request through the proxy server socket" },
  { file: "ui/button.ts", text: "render the button with the theme color and font" },
];

let dir: string;
let store: Store;
let server: EmbeddingsServer;
let tinyPath: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "argus-model-indexes-"));
  store = await connect(path.join(dir, "lancedb"));
  server = await startEmbeddingsServer({ dims: 64 });
  tinyPath = path.join(dir, "models", "tiny");
  await writeTinyModel(tinyPath);
});
afterAll(async () => {
  store?.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function buildIndex(name: string, configured: Embedder): Promise<void> {
  const { embedder, state } = embedderForFullBuild(
    configured,
    DOCS.map((d) => d.text),
  );
  const vectors = await embedder.embed(DOCS.map((d) => d.text));
  const rows: ChunkRow[] = DOCS.map((d, i) => ({
    id: `${d.file}#0`,
    file: d.file,
    language: "typescript",
    startLine: 1,
    endLine: 1,
    symbolPath: null,
    symbolKinds: [],
    text: d.text,
    searchText: splitIdentifiersInText(d.text, { keepOriginal: true }),
    contentHash: String(i),
    vector: vectors[i]!,
  }));
  await replaceIndex(store, name, { embedder: embedder.record(), embedderState: state, rows });
}

const openaiSettings = (extra: Partial<NonNullable<EmbedderSettingsInput["openai"]>> = {}): EmbedderSettingsInput => ({
  embedder: "openai",
  openai: { baseURL: server.baseURL, apiKey: "k", model: "nomic-embed-text", maxRetries: 0, ...extra },
});
const transformersSettings = (modelPath = tinyPath): EmbedderSettingsInput => ({
  embedder: "transformers",
  transformers: { modelPath },
});

describe("indexes built with model-backed embedders", () => {
  it("transformers: built, queried through search() with the embedder rebuilt from the record", async () => {
    await buildIndex("tiny-index", await createEmbedderFromSettings(transformersSettings()));
    const index = (await openChunkIndex(store, "tiny-index"))!;
    try {
      expect(index.embedder).toMatchObject({
        name: "transformers",
        dims: 16,
        params: { model: "tiny", path: tinyPath },
      });
      const embedder = await embedderFromRecord(index.embedder, index.embedderState, transformersSettings());
      const hits = await search(index, "which database table has this column", { mode: "vector", embedder });
      expect(hits.map((h) => h.file)).toEqual(["db/query.ts", expect.any(String), expect.any(String)]);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score + 0.2);
      // No model folder configured now (another embedder chosen): the recorded folder is used.
      const fromRecordedPath = await embedderFromRecord(index.embedder, index.embedderState, { embedder: "hash" });
      expect(fromRecordedPath.record()).toEqual(index.embedder);
      // Without an embedder, search says what it needs instead of guessing.
      await expect(search(index, "sql", { mode: "vector" })).rejects.toThrow(
        /"transformers" embedder; pass an instance/,
      );
    } finally {
      index.close();
    }
  });

  it("transformers: querying with another model or the hash embedder is refused", async () => {
    const index = (await openChunkIndex(store, "tiny-index"))!;
    try {
      const otherPath = path.join(dir, "models", "other");
      await writeTinyModel(otherPath, { seed: 7 });
      await expect(
        embedderFromRecord(index.embedder, index.embedderState, transformersSettings(otherPath)),
      ).rejects.toThrow(EmbedderMismatchError);
      await expect(search(index, "sql", { mode: "hybrid", embedder: new HashEmbedder() })).rejects.toThrow(
        /built with transformers \(16 dims.*a different embedder.*re-index/,
      );
      // Full text needs no embedder and still answers.
      expect((await search(index, "proxy", { mode: "fulltext" }))[0]!.file).toBe("net/client.ts");
    } finally {
      index.close();
    }
  });

  it("openai: built, queried with the key and endpoint from settings; another model or host is refused", async () => {
    await buildIndex("openai-index", await createEmbedderFromSettings(openaiSettings()));
    const index = (await openChunkIndex(store, "openai-index"))!;
    try {
      expect(index.embedder).toMatchObject({
        name: "openai",
        dims: 64,
        params: { model: "nomic-embed-text", host: new URL(server.baseURL).host },
      });
      expect(JSON.stringify(index.embedder)).not.toContain('"k"');
      // The configured model changed since: the record's model is used for this index's queries.
      const embedder = await embedderFromRecord(
        index.embedder,
        index.embedderState,
        openaiSettings({ model: "something-else" }),
      );
      expect(embedder.record()).toEqual(index.embedder);
      const hits = await search(index, "http proxy socket", { mode: "vector", embedder });
      expect(hits[0]!.file).toBe("net/client.ts");
      const otherHost = openaiSettings({ baseURL: server.baseURL.replace("127.0.0.1", "localhost") });
      await expect(embedderFromRecord(index.embedder, index.embedderState, otherHost)).rejects.toThrow(
        /different parameters or fitted state/,
      );
      const otherModel = await OpenAIEmbedder.create({ baseURL: server.baseURL, model: "mxbai-embed-large", dims: 64 });
      await expect(search(index, "socket", { mode: "vector", embedder: otherModel })).rejects.toThrow(
        EmbedderMismatchError,
      );
    } finally {
      index.close();
    }
  });

  it("a model embedder's index is not judged by the local embedder's calibration: relevance is the share of the query's words", async () => {
    // The calibrated model (relevance.ts MATCH_MODEL, STRONG_AT) was fitted on the local embedder's
    // cosines and IDF; another embedder's cosines mean something else, so its hits get the
    // uncalibrated share of the query's terms, strong from FALLBACK_STRONG_AT, in the fused order.
    await buildIndex("openai-relevance", await createEmbedderFromSettings(openaiSettings()));
    const index = (await openChunkIndex(store, "openai-relevance"))!;
    try {
      const embedder = await embedderFromRecord(index.embedder, index.embedderState, openaiSettings());
      for (const mode of ["hybrid", "vector", "fulltext"] as const) {
        const all = await search(index, "sql query table", { mode, embedder });
        const top = all.find((h) => h.file === "db/query.ts")!;
        expect(top, mode).toMatchObject({ relevance: 1, match: "strong" });
        const half = (await search(index, "sql theme", { mode, embedder })).find((h) => h.file === "db/query.ts")!;
        expect(half, mode).toMatchObject({ relevance: 0.5, match: "weak" });
        expect(0.5).toBeLessThan(FALLBACK_STRONG_AT);
      }
      expect(fusionFor(index.embedder).rerank).toBeNull();
    } finally {
      index.close();
    }
  });
});

describe("changing the embedder re-indexes", () => {
  it("detects a change of family, dims, model or weights — and not a hash refit", async () => {
    const hash = new HashEmbedder();
    const fitted = hash.fit(DOCS.map((d) => d.text));
    expect(embedderChanged(fitted.record(), new HashEmbedder())).toBe(false);
    expect(embedderChanged(fitted.record(), new HashEmbedder({ dims: 512 }))).toBe(true);
    expect(embedderChanged({ ...fitted.record(), params: { version: 0 } }, new HashEmbedder())).toBe(true);

    const tiny = await TransformersEmbedder.load({ model: tinyPath });
    expect(embedderChanged(fitted.record(), tiny)).toBe(true);
    expect(embedderChanged(tiny.record(), tiny)).toBe(false);
    expect(embedderChanged(tiny.record(), await TransformersEmbedder.load({ model: tinyPath, maxTokens: 8 }))).toBe(
      true,
    );

    const openai = await OpenAIEmbedder.create({ baseURL: server.baseURL, model: "a", dims: 64 });
    expect(
      embedderChanged(openai.record(), await OpenAIEmbedder.create({ baseURL: server.baseURL, model: "a", dims: 64 })),
    ).toBe(false);
    expect(
      embedderChanged(openai.record(), await OpenAIEmbedder.create({ baseURL: server.baseURL, model: "b", dims: 64 })),
    ).toBe(true);
  });

  it("a full build fits the hash embedder on the texts and uses the others as configured", async () => {
    const { embedder, state } = embedderForFullBuild(
      new HashEmbedder(),
      DOCS.map((d) => d.text),
    );
    expect(state).toMatchObject({ docs: 3 });
    expect(embedder.record().params.idfDocs).toBe(3);
    const tiny = await TransformersEmbedder.load({ model: tinyPath });
    expect(embedderForFullBuild(tiny, [])).toEqual({ embedder: tiny, state: null });
  });
});

describe("settings", () => {
  const env = z.object(embedderEnvShape);

  it("parses the environment variables into settings", () => {
    const parsed = env.parse({
      EMBEDDER: "openai",
      EMBEDDINGS_BASE_URL: "http://localhost:11434/v1",
      EMBEDDINGS_MODEL: "nomic-embed-text",
      EMBEDDINGS_DIMS: "768",
      EMBEDDINGS_BATCH_SIZE: "32",
      TRANSFORMERS_ALLOW_REMOTE: "false",
    });
    const s = embedderSettingsFromEnv(parsed, "/data");
    expect(s).toMatchObject({
      embedder: "openai",
      hash: { dims: 768 },
      openai: {
        baseURL: "http://localhost:11434/v1",
        model: "nomic-embed-text",
        dims: 768,
        maxBatchSize: 32,
        requestDimensions: false,
        maxRetries: 4,
      },
      transformers: { allowRemote: false, cacheDir: path.join("/data", "models"), dtype: "fp32" },
    });
    expect(embedderSettingsFromEnv(env.parse({}))).toMatchObject({
      embedder: "local",
      transformers: { allowRemote: false },
    });
  });

  it("rejects bad values with the variable's expectation", () => {
    expect(env.safeParse({ EMBEDDER: "bert" }).success).toBe(false);
    expect(env.safeParse({ EMBEDDINGS_BASE_URL: "localhost:11434" }).error?.issues[0]?.message).toMatch(
      /http\(s\) URL/,
    );
    expect(env.safeParse({ EMBEDDINGS_DIMS: "-3" }).error?.issues[0]?.message).toMatch(/positive/);
    expect(env.safeParse({ TRANSFORMERS_ALLOW_REMOTE: "yes" }).error?.issues[0]?.message).toMatch(/true or false/);
  });

  it("creates each embedder, and names the missing variable", async () => {
    expect(await createEmbedderFromSettings({})).toBeInstanceOf(LocalEmbedder);
    expect(await createEmbedderFromSettings({ embedder: "hash" })).toBeInstanceOf(HashEmbedder);
    expect((await createEmbedderFromSettings({ embedder: "hash", hash: { dims: 512 } })).dims).toBe(512);
    expect((await createEmbedderFromSettings(openaiSettings())).dims).toBe(64);
    const a = await createEmbedderFromSettings(transformersSettings());
    expect(a).toBeInstanceOf(TransformersEmbedder);
    // One loaded model per folder and options.
    expect(await createEmbedderFromSettings(transformersSettings())).toBe(a);
    await expect(createEmbedderFromSettings({ embedder: "openai" })).rejects.toThrow(/needs EMBEDDINGS_MODEL/);
    await expect(createEmbedderFromSettings({ embedder: "transformers" })).rejects.toThrow(
      /needs TRANSFORMERS_MODEL_PATH/,
    );
    await expect(createEmbedderFromSettings(transformersSettings(path.join(dir, "missing")))).rejects.toThrow(
      /does not exist/,
    );
  });
});
