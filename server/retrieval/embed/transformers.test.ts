import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedderForIndex } from "./from-record.ts";
import { cosine } from "./hash.ts";
import { writeTinyModel } from "./testing/tiny-model.ts";
import { TransformersEmbedder, TransformersModelError } from "./transformers.ts";
import { EmbedderMismatchError } from "./types.ts";

let root: string;
let embedder: TransformersEmbedder;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "argus-transformers-"));
  await writeTinyModel(path.join(root, "tiny"), { dims: 16, maxLength: 32 });
  embedder = await TransformersEmbedder.load({ model: path.join(root, "tiny") });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const norm = (v: Float32Array) => Math.sqrt(cosine(v, v));

describe("transformers embedder on a tiny generated model", () => {
  it("learns its dimension from the model and returns L2-normalised vectors", async () => {
    expect(embedder.dims).toBe(16);
    const vectors = await embedder.embed(["SQL query on a table", "http server socket"]);
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v).toHaveLength(16);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it("is deterministic, and a batch equals one-by-one (padding does not leak into the mean)", async () => {
    const texts = [
      "select rows from the database",
      "click",
      "render the button layout with a theme color",
      "tcp proxy header",
    ];
    const batched = await embedder.embed(texts);
    const again = await embedder.embed(texts);
    expect(again.map((v) => [...v])).toEqual(batched.map((v) => [...v]));
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]);
      for (let d = 0; d < embedder.dims; d++) expect(single![d]).toBeCloseTo(batched[i]![d]!, 6);
    }
  });

  it("places texts about one topic closer together than texts about another", async () => {
    const [sql1, sql2, net, ui] = await embedder.embed([
      "join two tables in an sql query",
      "select a column from the database schema",
      "the http client sends a request to the proxy server",
      "render a button with the theme font",
    ]);
    expect(cosine(sql1!, sql2!)).toBeGreaterThan(cosine(sql1!, net!) + 0.3);
    expect(cosine(sql1!, sql2!)).toBeGreaterThan(cosine(sql1!, ui!) + 0.3);
    expect(cosine(net!, ui!)).toBeLessThan(0.5);
  });

  it("runs the vocabulary through the real tokenizer: case and subword pieces", async () => {
    const [lower, upper, plural] = await embedder.embed(["socket port", "SOCKET Port", "sockets ports"]);
    expect([...upper!]).toEqual([...lower!]);
    // "sockets" → socket ##s: close to, but not the same as, the singular.
    expect(cosine(lower!, plural!)).toBeGreaterThan(0.9);
    expect(cosine(lower!, plural!)).toBeLessThan(0.99999);
  });

  it("handles an empty batch, blank texts and huge inputs", async () => {
    expect(await embedder.embed([])).toEqual([]);
    const [blank, text] = await embedder.embed(["  \n", "sql"]);
    expect(norm(blank!)).toBe(0);
    expect(norm(text!)).toBeCloseTo(1, 5);
    // 100 KB of text: cut before tokenizing, then truncated to the model's 32 tokens.
    const huge = "sql query table ".repeat(7000);
    const before = embedder.truncatedInputs;
    const [v] = await embedder.embed([huge]);
    expect(embedder.truncatedInputs).toBe(before + 1);
    expect(norm(v!)).toBeCloseTo(1, 5);
    const [short] = await embedder.embed(["sql query table ".repeat(10)]);
    expect(cosine(v!, short!)).toBeGreaterThan(0.99);
  });

  it("records the model so queries use the same one, and refuses a different model", async () => {
    const record = embedder.record();
    expect(record).toMatchObject({
      name: "transformers",
      dims: 16,
      params: { model: "tiny", path: path.join(root, "tiny"), dtype: "fp32", pooling: "mean", maxTokens: 32 },
    });
    // Same files under another folder name: same vector space.
    await writeTinyModel(path.join(root, "copy"), { dims: 16, maxLength: 32 });
    const copy = await TransformersEmbedder.load({ model: path.join(root, "copy") });
    expect(copy.record().paramsHash).toBe(record.paramsHash);
    expect(embedderForIndex(record, null, copy)).toBe(copy);
    // Other weights with the same shape and name: refused.
    await writeTinyModel(path.join(root, "other", "tiny"), { dims: 16, maxLength: 32, seed: 2 });
    const other = await TransformersEmbedder.load({ model: path.join(root, "other", "tiny") });
    expect(() => embedderForIndex(record, null, other)).toThrow(EmbedderMismatchError);
    expect(() => embedderForIndex(record, null, other)).toThrow(/different parameters.*re-index/);
  });

  it("names the missing files of an incomplete folder, and a missing folder", async () => {
    const partial = path.join(root, "partial");
    await writeTinyModel(partial, { omit: ["tokenizer.json", "onnx/model.onnx"] });
    const error = await TransformersEmbedder.load({ model: partial }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransformersModelError);
    expect((error as Error).message).toMatch(/incomplete: missing tokenizer\.json, onnx\/model\.onnx/);
    await expect(TransformersEmbedder.load({ model: path.join(root, "nowhere") })).rejects.toThrow(
      /does not exist.*config\.json, tokenizer\.json/,
    );
    await expect(TransformersEmbedder.load({ model: partial, dtype: "q8" })).rejects.toThrow(
      /missing tokenizer\.json, onnx\/model_quantized\.onnx/,
    );
    await expect(TransformersEmbedder.load({ model: "" })).rejects.toThrow(/TRANSFORMERS_MODEL_PATH/);
  });

  it("reports a corrupt model file clearly instead of crashing", async () => {
    const corrupt = path.join(root, "corrupt");
    await writeTinyModel(corrupt);
    await writeFile(path.join(corrupt, "onnx/model.onnx"), "this is not a protobuf");
    await expect(TransformersEmbedder.load({ model: corrupt })).rejects.toThrow(
      /could not load the model in .*corrupt/,
    );
  });

  it("never touches the network with remote off, even for a Hub-style id", async () => {
    // Not a folder here and remote is off: treated as a (missing) local path, no download attempt.
    await expect(TransformersEmbedder.load({ model: "Xenova/all-MiniLM-L6-v2" })).rejects.toThrow(/does not exist/);
  });
});
