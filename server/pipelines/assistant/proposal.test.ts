import { describe, expect, it } from "vitest";
import { SECRET_MASK } from "../../shared/pipelines.ts";
import { applyParameters, maskSecrets, MAX_ANSWER, readAnswer } from "./proposal.ts";

const ctx = { aliases: ["retriever", "prompt"], templates: ["prompt/qa_rag_citation.jinja"] };

describe("reading the model's answer", () => {
  it("takes one JSON object, bare or fenced", () => {
    expect(readAnswer('Sure: {"summary": "top 5", "parameters": {"retriever": {"top_k": 5}}}')).toEqual({
      ok: true,
      value: { summary: "top 5", yaml: null, parameters: { retriever: { top_k: 5 } } },
    });
    const fenced = readAnswer('```json\n{"summary": "x", "yaml": "servers: {}\\npipeline: []\\n"}\n```');
    expect(fenced.ok && fenced.value.yaml).toBe("servers: {}\npipeline: []\n");
  });

  it("refuses prose, oversized answers, wrong shapes and answers that change nothing", () => {
    expect(readAnswer("I would add a reranker.")).toEqual({ ok: false, error: "the answer is not one JSON object" });
    expect(readAnswer("x".repeat(MAX_ANSWER + 1))).toMatchObject({ ok: false, error: /over 200000 characters/ });
    expect(readAnswer('{"summary": "s", "yaml": 3}')).toMatchObject({ ok: false, error: /^yaml:/ });
    expect(readAnswer(`{"summary": "s", "yaml": "${"a".repeat(70_000)}"}`)).toMatchObject({
      ok: false,
      error: /yaml is over/,
    });
    expect(readAnswer('{"summary": "nothing"}')).toMatchObject({ ok: false, error: /changes neither/ });
  });
});

describe("applying its parameters", () => {
  it("merges the changes into the current file, alias by alias", () => {
    const r = applyParameters(
      { retriever: { top_k: 3, backend_configs: { bm25: { lang: "en" } } } },
      { retriever: { backend_configs: { bm25: { lang: "zh" } } } },
      ctx,
    );
    expect(r).toEqual({
      ok: true,
      value: { parameters: { retriever: { top_k: 3, backend_configs: { bm25: { lang: "zh" } } } }, ignoredSecrets: [] },
    });
  });

  it("refuses a value of another type than the one it replaces, naming the parameter", () => {
    expect(applyParameters({ retriever: { top_k: 3 } }, { retriever: { top_k: "two" } }, ctx)).toEqual({
      ok: false,
      error: 'retriever.top_k: must be a number, not "two"',
    });
  });

  it("never takes a secret from the model: the stored one (or its mask) stays", () => {
    const r = applyParameters(
      { retriever: { api_key: SECRET_MASK } },
      { retriever: { api_key: "sk-attacker", top_k: 2 } },
      ctx,
    );
    expect(r).toEqual({
      ok: true,
      value: { parameters: { retriever: { api_key: SECRET_MASK, top_k: 2 } }, ignoredSecrets: ["retriever.api_key"] },
    });
  });

  it("refuses an alias the pipeline does not declare and a template that is not the gallery's", () => {
    expect(applyParameters({}, { evil: { x: 1 } }, ctx)).toMatchObject({ ok: false, error: /no server alias "evil"/ });
    expect(applyParameters({}, { prompt: { template: "/etc/passwd" } }, ctx)).toMatchObject({
      ok: false,
      error: /prompt\.template: "\/etc\/passwd" is not one of the gallery's templates/,
    });
    expect(applyParameters({}, { prompt: { template: "prompt/qa_rag_citation.jinja" } }, ctx).ok).toBe(true);
  });

  it("masks secrets in what the model is shown", () => {
    expect(
      maskSecrets({ generation: { backend_configs: { openai: { api_key: "sk-typed", model_name: "m" } } } }),
    ).toEqual({ generation: { backend_configs: { openai: { api_key: SECRET_MASK, model_name: "m" } } } });
  });
});
