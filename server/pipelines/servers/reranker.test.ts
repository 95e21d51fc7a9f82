/** servers/reranker: the lexical (BM25-over-candidates) default, a /rerank endpoint, and bad input. */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { CallContext } from "./contract.ts";
import { lexicalScores, reranker } from "./reranker.ts";

const ctx: CallContext = { cwd: "/" };
const INIT = { model_name_or_path: "m", backend_configs: {}, batch_size: 16, gpu_ids: 0 };

describe("reranker", () => {
  it("BM25 over the candidates puts the passage sharing the rare query words first; ties keep retriever order", async () => {
    const docs = ["the weather is nice", "Kivett and Myers designed the stadium", "stadium food", "unrelated text"];
    const s = lexicalScores("Kivett Myers stadium", docs);
    expect(s[1]).toBeGreaterThan(s[2]!);
    expect(s[2]).toBeGreaterThan(0);
    expect(s[0]).toBe(0);
    const notices: string[] = [];
    const server = reranker();
    await server.call(
      "tool",
      "reranker_init",
      { ...INIT, backend: "sentence_transformers" },
      { ...ctx, notice: (m) => notices.push(m) },
    );
    expect(notices[0]).toMatch(/reranks with BM25 over the candidates/);
    const out = await server.call(
      "tool",
      "reranker_rerank",
      { query_list: ["Kivett Myers stadium"], passages_list: [docs], top_k: 3, query_instruction: "" },
      ctx,
    );
    expect(out).toEqual({ rerank_psg: [[docs[1], docs[2], docs[0]]] });
  });

  it("a /rerank endpoint (index or document results), and mismatched lengths refused", async () => {
    let received: unknown;
    const http = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received = { url: req.url, body: JSON.parse(body) as unknown };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ results: [{ index: 1, relevance_score: 0.9 }, { document: { text: "a" } }] }));
      });
    });
    http.listen(0, "127.0.0.1");
    await once(http, "listening");
    try {
      const server = reranker();
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1`;
      await server.call(
        "tool",
        "reranker_init",
        { ...INIT, backend: "openai", backend_configs: { openai: { base_url: base, model_name: "rr" } } },
        ctx,
      );
      const out = await server.call(
        "tool",
        "reranker_rerank",
        { query_list: ["q"], passages_list: [["a", "b"]], top_k: 2, query_instruction: "" },
        ctx,
      );
      expect(out).toEqual({ rerank_psg: [["b", "a"]] });
      expect(received).toEqual({
        url: "/v1/rerank",
        body: { model: "rr", query: "q", documents: ["a", "b"], top_n: 2 },
      });
      await expect(
        server.call(
          "tool",
          "reranker_rerank",
          { query_list: ["q", "r"], passages_list: [["a"]], top_k: 2, query_instruction: "" },
          ctx,
        ),
      ).rejects.toThrow("2 queries but 1 passage lists; they must match");
    } finally {
      http.close();
    }
    await expect(
      reranker().call("tool", "reranker_rerank", { query_list: [], passages_list: [], top_k: 1 }, ctx),
    ).rejects.toThrow("run reranker.reranker_init first");
  });
});
