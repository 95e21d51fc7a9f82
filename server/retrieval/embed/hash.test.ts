import { describe, expect, it } from "vitest";
import { cosine, fitHashIdf, HashEmbedder, hashIdfStateSchema } from "./hash.ts";
import { assertSameEmbedder, EmbedderMismatchError } from "./types.ts";

const CHUNKS = [
  "export function parseConfigFile(path: string): Config {\n  const text = readFileSync(path, 'utf8');\n  return JSON.parse(text);\n}",
  "class HttpServer {\n  listen(port: number) { this.socket.bind(port); }\n}",
  "def render_template(name, context):\n    return jinja_env.get_template(name).render(context)",
  "SELECT user_id, COUNT(*) FROM orders GROUP BY user_id",
  "function retryWithBackoff(fn, maxRetries) { for (let i = 0; i < maxRetries; i++) { try { return fn(); } catch {} } }",
];

const norm = (v: Float32Array) => Math.sqrt(cosine(v, v));

describe("hash embedder", () => {
  const embedder = new HashEmbedder().fit(CHUNKS);

  it("is deterministic, L2-normalised, 1024 dims by default", async () => {
    const [a, b] = await embedder.embed([CHUNKS[0]!, CHUNKS[0]!]);
    expect(a).toHaveLength(1024);
    expect([...a!]).toEqual([...b!]);
    expect([...(await new HashEmbedder().fit(CHUNKS).embed([CHUNKS[0]!]))[0]!]).toEqual([...a!]);
    expect(norm(a!)).toBeCloseTo(1, 5);
  });

  it("maps featureless text to the zero vector", async () => {
    const [v] = await embedder.embed(["(){};"]);
    expect(norm(v!)).toBe(0);
  });

  it("ranks the chunk sharing identifiers with a query above unrelated ones", async () => {
    const docs = await embedder.embed(CHUNKS);
    const expectTop = async (query: string, index: number) => {
      const [q] = await embedder.embed([query]);
      const scores = docs.map((d) => cosine(q!, d));
      const best = scores.indexOf(Math.max(...scores));
      expect(best, `${query}: ${scores.map((s) => s.toFixed(3)).join(" ")}`).toBe(index);
      expect(scores[index]).toBeGreaterThan(0);
    };
    await expectTop("parse config file", 0);
    await expectTop("http server listen port", 1);
    await expectTop("renderTemplate", 2);
    await expectTop("retry with backoff", 4);
  });

  it("round-trips its fitted IDF state through JSON", async () => {
    const state = JSON.parse(JSON.stringify(embedder.idfState()));
    const restored = new HashEmbedder({ idf: hashIdfStateSchema.parse(state) });
    expect(restored.record()).toEqual(embedder.record());
    expect([...(await restored.embed([CHUNKS[1]!]))[0]!]).toEqual([...(await embedder.embed([CHUNKS[1]!]))[0]!]);
    expect(state.docs).toBe(CHUNKS.length);
  });

  it("IDF down-weights what every chunk shares", () => {
    const state = fitHashIdf(["alpha common", "beta common", "gamma common"]);
    // Only "common" is in ≥ 2 documents; the one-off words are not stored.
    expect(state.features).toHaveLength(1);
    expect(state.df).toEqual([3]);
  });

  it("refuses a query embedder from another space, with a clear message", () => {
    expect(() => assertSameEmbedder(embedder.record(), embedder.record())).not.toThrow();
    const refit = new HashEmbedder().fit(CHUNKS.slice(1));
    expect(() => assertSameEmbedder(embedder.record(), refit.record())).toThrow(EmbedderMismatchError);
    expect(() => assertSameEmbedder(embedder.record(), refit.record())).toThrow(
      /different parameters or fitted state.*re-index/,
    );
    expect(() => assertSameEmbedder(embedder.record(), new HashEmbedder({ dims: 512 }).fit(CHUNKS).record())).toThrow(
      /a different dimension/,
    );
    expect(() => assertSameEmbedder(embedder.record(), { ...embedder.record(), name: "openai" })).toThrow(
      /a different embedder/,
    );
  });

  it("insists on ≥ 512 power-of-two dims", () => {
    expect(() => new HashEmbedder({ dims: 256 })).toThrow(/power of two/);
    expect(() => new HashEmbedder({ dims: 1000 })).toThrow(/power of two/);
  });
});
