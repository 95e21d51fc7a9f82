/** The chat's pure parts: citations, the history a follow-up carries, which pipelines can chat, the model check. */
import { describe, expect, it } from "vitest";
import { citationParts, citedIds, titleFromQuestion } from "../../shared/pipeline-chat.ts";
import { galleryEntries } from "../workspace/gallery.ts";
import { chatCapability, modelProblem } from "./capability.ts";
import { conversationPipeline, historyMessages, type PastTurn } from "./conversation.ts";

describe("citations", () => {
  const known = new Set([1, 2, 3]);
  it("links [n], [n, m] and [n][m] to known sources only", () => {
    expect(citationParts("Everest [1] is high [2, 3]. See [9] and [x].", known)).toEqual([
      { kind: "text", text: "Everest " },
      { kind: "cite", id: 1, text: "[1]" },
      { kind: "text", text: " is high " },
      { kind: "cite", id: 2, text: "[2]" },
      { kind: "cite", id: 3, text: "[3]" },
      { kind: "text", text: ". See [9] and [x]." },
    ]);
    expect(citedIds("[3][1] then [3] and [2, 9]", known)).toEqual([3, 1]);
  });

  it("names a session after its question's first line", () => {
    expect(titleFromQuestion("  Which mountain\nis the highest?")).toBe("Which mountain");
    expect(titleFromQuestion("word ".repeat(30)).length).toBeLessThanOrEqual(61);
    expect(titleFromQuestion("   ")).toBe("New chat");
  });
});

describe("a follow-up's history", () => {
  const src = [{ id: 1, title: "Everest", content: "Mount Everest is 8,849 m high." }];
  const past: PastTurn[] = [
    { role: "user", body: "Highest mountain?", status: "done", mode: null, sources: [] },
    { role: "assistant", body: "Everest [1].", status: "done", mode: "pipeline", sources: src },
    { role: "user", body: "Broken one", status: "done", mode: null, sources: [] },
    { role: "assistant", body: "", status: "failed", mode: "conversation", sources: [] },
  ];

  it("carries the answered turns in order, the sources as a system message, and ends with the question", () => {
    const m = historyMessages(past, "How tall?", src);
    expect(m.map((x) => x.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(m[0]!.content).toContain("[1] Mount Everest is 8,849 m high.");
    expect(m.slice(1).map((x) => x.content)).toEqual(["Highest mountain?", "Everest [1].", "How tall?"]);
  });

  it("keeps only the last turns and cuts long sources", () => {
    const many: PastTurn[] = Array.from({ length: 30 }, (_, i) => [
      { role: "user", body: `q${i}`, status: "done", mode: null, sources: [] },
      { role: "assistant", body: `a${i}`, status: "done", mode: "conversation", sources: [] },
    ]).flat();
    const m = historyMessages(many, "next", [{ id: 1, title: "t", content: "x".repeat(5000) }], {
      turns: 2,
      sourceChars: 100,
      sourcesTotal: 1000,
    });
    expect(m.map((x) => x.content).slice(1)).toEqual(["q28", "a28", "q29", "a29", "next"]);
    expect(m[0]!.content.length).toBeLessThan(250);
  });

  it("runs as chat_history.history → generation_init → multiturn_generate under the pipeline's alias", () => {
    expect(conversationPipeline("cot")).toBe(
      "servers:\n  chat_history: servers/chat_history\n  cot: servers/generation\npipeline:\n- chat_history.history\n- cot.generation_init\n- cot.multiturn_generate\n",
    );
  });
});

describe("which pipelines can chat", () => {
  it("the gallery's answering pipelines can; retrieval, indexing and evaluation ones say why not", async () => {
    const verdicts = Object.fromEntries(
      await Promise.all(
        galleryEntries().map(async (e) => [e.key, await chatCapability({ name: e.key, ...e })] as const),
      ),
    );
    for (const key of ["vanilla_rag", "rag_citation", "vanilla_llm", "ircot", "kb_rag"])
      expect(verdicts[key]?.ok, key).toBe(true);
    // Two generation aliases: the answer is gen's (cot's output is renamed to kr_ls).
    expect(verdicts.rankcot).toMatchObject({ ok: true, generationAlias: "gen" });
    for (const key of ["bm25_search", "rerank", "hybrid_search", "web_search"])
      expect(verdicts[key]).toMatchObject({ ok: false, reason: expect.stringContaining("writes no answer") });
    expect(verdicts.eval_trec).toMatchObject({ ok: false, reason: expect.stringContaining("reads no questions") });
  });
});

describe("whether the model is set up", () => {
  const section = (openai: Record<string, unknown>) => ({ backend: "openai", backend_configs: { openai } });
  it("names the parameter that is missing", () => {
    expect(modelProblem("generation", section({ model_name: "m", base_url: "http://x/v1" }), {})).toBeNull();
    expect(modelProblem("generation", section({ model_name: "", base_url: "http://x/v1" }), {})).toMatch(
      /generation.backend_configs.openai.model_name is empty/,
    );
    expect(modelProblem("generation", section({ model_name: "m", base_url: "ftp://x" }), {})).toMatch(/base_url/);
    expect(modelProblem("generation", section({ model_name: "m" }), {})).toMatch(/without an API key/);
    expect(modelProblem("generation", section({ model_name: "m" }), { LLM_API_KEY: "k" })).toBeNull();
    expect(modelProblem("gen", { backend: "tpu" }, {})).toMatch(/gen.backend must be openai, vllm or hf/);
  });
});
