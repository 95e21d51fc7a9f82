import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cosine } from "./hash.ts";
import { EmbeddingEndpointError, OpenAIEmbedder, type OpenAIEmbedderOptions } from "./openai.ts";
import { startEmbeddingsServer, type EmbeddingsServer } from "./testing/embeddings-server.ts";
import { assertSameEmbedder, EmbedderMismatchError } from "./types.ts";

let server: EmbeddingsServer;
const KEY = "sk-test-secret-key-123";

beforeAll(async () => {
  server = await startEmbeddingsServer({ dims: 32 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.queue.length = 0;
  for (const k of Object.keys(server.options)) delete server.options[k as keyof typeof server.options];
  server.options.dims = 32;
});

const make = (extra: Partial<OpenAIEmbedderOptions> = {}) =>
  OpenAIEmbedder.create({
    baseURL: server.baseURL,
    apiKey: KEY,
    model: "nomic-embed-text",
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    timeoutMs: 5000,
    ...extra,
  });
const norm = (v: Float32Array) => Math.sqrt(cosine(v, v));

describe("openai embedder against an OpenAI-compatible endpoint", () => {
  it("learns the dimension from one probe request, sends model and key, returns normalised vectors", async () => {
    const embedder = await make();
    expect(embedder.dims).toBe(32);
    expect(server.requests).toHaveLength(1);
    const vectors = await embedder.embed(["parse the config file", "open a socket"]);
    expect(vectors.map((v) => v.length)).toEqual([32, 32]);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const last = server.requests.at(-1)!;
    expect(last.path).toBe("/v1/embeddings");
    expect(last.authorization).toBe(`Bearer ${KEY}`);
    expect(last.body).toMatchObject({
      model: "nomic-embed-text",
      input: ["parse the config file", "open a socket"],
      encoding_format: "float",
    });
    expect(last.body.dimensions).toBeUndefined();
  });

  it("with configured dims makes no probe, and can request the dimension from the model", async () => {
    const embedder = await make({ dims: 16, requestDimensions: true });
    expect(server.requests).toHaveLength(0);
    const [v] = await embedder.embed(["hello world"]);
    expect(v).toHaveLength(16);
    expect(server.requests[0]!.body.dimensions).toBe(16);
  });

  it("is deterministic, batch = one by one, and similar texts are closer", async () => {
    const embedder = await make({ dims: 32 });
    const texts = ["parse config file", "parse the config", "http server listen port", "render html template"];
    const batched = await embedder.embed(texts);
    const again = await embedder.embed(texts);
    expect(again.map((v) => [...v])).toEqual(batched.map((v) => [...v]));
    for (let i = 0; i < texts.length; i++)
      expect([...(await embedder.embed([texts[i]!]))[0]!]).toEqual([...batched[i]!]);
    expect(cosine(batched[0]!, batched[1]!)).toBeGreaterThan(cosine(batched[0]!, batched[2]!));
  });

  it("splits large batches into requests of at most maxBatchSize, keeping the order", async () => {
    server.options.maxBatch = 4;
    const embedder = await make({ dims: 32, maxBatchSize: 4 });
    const texts = Array.from({ length: 10 }, (_, i) => `word${i} shared`);
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((r) => (r.body.input as string[]).length)).toEqual([4, 4, 2]);
    const singles = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    vectors.forEach((v, i) => expect([...v]).toEqual([...singles[i]!]));
  });

  it("puts out-of-order data back by index and accepts base64 vectors", async () => {
    const plain = await make({ dims: 32 });
    const expected = await plain.embed(["alpha beta", "gamma delta", "epsilon"]);
    server.options.reversed = true;
    server.options.alwaysBase64 = true;
    const got = await plain.embed(["alpha beta", "gamma delta", "epsilon"]);
    got.forEach((v, i) => {
      for (let d = 0; d < 32; d++) expect(v[d]).toBeCloseTo(expected[i]![d]!, 6);
    });
  });

  it("handles an empty batch, blank texts and huge inputs without bad requests", async () => {
    const notes: { index: number; chars: number; keptChars: number }[] = [];
    const embedder = await make({ dims: 32, maxInputChars: 1000, onTruncate: (n) => notes.push(n) });
    expect(await embedder.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    const huge = "token ".repeat(20_000);
    const [blank, text, cut] = await embedder.embed(["", "some text", huge]);
    expect(norm(blank!)).toBe(0);
    expect(norm(text!)).toBeCloseTo(1, 5);
    expect(norm(cut!)).toBeCloseTo(1, 5);
    // The blank text was not sent (OpenAI rejects empty inputs); the huge one was cut, with a note.
    expect(server.requests[0]!.body.input).toEqual(["some text", huge.slice(0, 1000)]);
    expect(notes).toEqual([{ index: 2, chars: huge.length, keptChars: 1000 }]);
    expect(embedder.truncatedInputs).toBe(1);
  });

  it("retries 429 and 5xx with backoff, honouring retry-after", async () => {
    const embedder = await make({ dims: 32 });
    server.queue.push(
      { status: 429, body: { error: { message: "rate limited" } }, headers: { "retry-after-ms": "5" } },
      { status: 503, body: { error: { message: "loading model" } } },
      { status: 500, body: "internal error" },
    );
    const [v] = await embedder.embed(["after retries"]);
    expect(norm(v!)).toBeCloseTo(1, 5);
    expect(server.requests).toHaveLength(4);
  });

  it("gives up after maxRetries with a message naming endpoint, model, status and attempts — never the key", async () => {
    const embedder = await make({ dims: 32, retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    for (let i = 0; i < 3; i++)
      server.queue.push({ status: 502, body: { error: { message: `bad gateway for key ${KEY}` } } });
    const error = (await embedder.embed(["x"]).catch((e: unknown) => e)) as EmbeddingEndpointError;
    expect(error).toBeInstanceOf(EmbeddingEndpointError);
    expect(error.message).toContain(`embeddings endpoint ${server.baseURL} (model nomic-embed-text) 502`);
    expect(error.message).toContain("after 3 attempts");
    expect(error.message).not.toContain(KEY);
    expect(error.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry other 4xx, and says what to check", async () => {
    const embedder = await make({ dims: 32 });
    server.queue.push({ status: 401, body: { error: { message: "invalid api key" } } });
    await expect(embedder.embed(["x"])).rejects.toThrow(/401: invalid api key — check EMBEDDINGS_API_KEY/);
    server.queue.push({ status: 404, body: { error: { message: "model not found" } } });
    await expect(embedder.embed(["x"])).rejects.toThrow(/404: model not found — check EMBEDDINGS_BASE_URL/);
    server.options.maxBatch = 1;
    await expect(embedder.embed(["a", "b"])).rejects.toThrow(/413/);
    expect(server.requests).toHaveLength(3);
  });

  it("rejects malformed answers: wrong count, wrong dimension, not JSON, non-finite values", async () => {
    const embedder = await make({ dims: 32 });
    server.queue.push({ status: 200, body: { data: [{ index: 0, embedding: [1, 2] }] } });
    await expect(embedder.embed(["a", "b"])).rejects.toThrow(/1 embeddings for 2 inputs/);
    server.options.wrongDims = 8;
    await expect(embedder.embed(["a"])).rejects.toThrow(/returned 8-dim vectors, but 32 were expected/);
    delete server.options.wrongDims;
    server.queue.push({ status: 200, body: "<html>proxy login</html>" });
    await expect(embedder.embed(["a"])).rejects.toThrow(/OpenAI-compatible/);
    server.queue.push({ status: 200, body: { data: [{ index: 0, embedding: [1e39, ...new Array(31).fill(1)] }] } });
    await expect(embedder.embed(["a"])).rejects.toThrow(/non-finite/);
  });

  it("reports an unreachable endpoint clearly", async () => {
    const dead = await startEmbeddingsServer();
    const url = dead.baseURL;
    await dead.close();
    const error = await OpenAIEmbedder.create({
      baseURL: url,
      model: "m",
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      new RegExp(`embeddings endpoint ${url.replace(/[.]/g, "\\.")} \\(model m\\).*connection.*is the server running`),
    );
  });

  it("validates its options", async () => {
    await expect(make({ model: " " })).rejects.toThrow(/EMBEDDINGS_MODEL/);
    await expect(make({ baseURL: "not a url" })).rejects.toThrow(/not a URL/);
    await expect(make({ baseURL: "ftp://x/v1" })).rejects.toThrow(/http\(s\)/);
    await expect(make({ maxBatchSize: 0 })).rejects.toThrow(/max batch size/);
    await expect(make({ requestDimensions: true })).rejects.toThrow(/needs dims/);
    // Credentials in the URL are not repeated in messages.
    const error = (await make({ baseURL: "http://user:hunter2@127.0.0.1:1/v1", model: "" }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toContain("http://127.0.0.1:1/v1");
    expect(error.message).not.toContain("hunter2");
  });

  it("records model, host and dims (not the key), and refuses another model or host", async () => {
    const embedder = await make({ dims: 32 });
    const record = embedder.record();
    expect(record).toMatchObject({
      name: "openai",
      dims: 32,
      params: { model: "nomic-embed-text", host: new URL(server.baseURL).host },
    });
    expect(JSON.stringify(record)).not.toContain(KEY);
    expect(() => assertSameEmbedder(record, embedder.record())).not.toThrow();
    const otherModel = await make({ dims: 32, model: "mxbai-embed-large" });
    expect(() => assertSameEmbedder(record, otherModel.record())).toThrow(EmbedderMismatchError);
    const otherHost = await make({ dims: 32, baseURL: server.baseURL.replace("127.0.0.1", "localhost") });
    expect(() => assertSameEmbedder(record, otherHost.record())).toThrow(/different parameters/);
    // Same model and host with another key: the same space.
    const otherKey = await make({ dims: 32, apiKey: "another-key" });
    expect(otherKey.record()).toEqual(record);
  });
});
