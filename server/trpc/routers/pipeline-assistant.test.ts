/** The builder assistant over tRPC against the real server, answered by the scripted model. */
import { afterAll, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../llm/scripted/server.ts";
import { startServerWithTeam } from "./test-support.ts";

const { owner, member, viewer } = await startServerWithTeam();
const ws = owner.workspaceId;

const BM25 = `servers:
  benchmark: servers/benchmark
  retriever: servers/retriever
pipeline:
  - benchmark.get_data
  - retriever.retriever_init
  - retriever.bm25_index
  - retriever.bm25_search
`;
const WITH_RERANKER = BM25.replace(
  "  retriever: servers/retriever\n",
  "  retriever: servers/retriever\n  reranker: servers/reranker\n",
).concat("  - reranker.reranker_init\n  - reranker.reranker_rerank\n");
const answer = (o: unknown) => JSON.stringify(o);

const llm = await startScriptedServer({
  script: {
    rules: [
      { match: "Change requested: add a reranker", text: answer({ summary: "Adds a reranker.", yaml: WITH_RERANKER }) },
      {
        match: "Change requested: fewer passages",
        text: answer({ summary: "Top 2.", parameters: { retriever: { top_k: "two" } } }),
      },
      {
        match: "/was not valid[\\s\\S]*top_k/",
        text: answer({ summary: "Top 2.", parameters: { retriever: { top_k: 2 } } }),
      },
      {
        match: "Change requested: break it",
        text: answer({ summary: "Broken.", yaml: `${BM25}  - retriever.nope\n` }),
      },
      { match: "no server alias", text: answer({ summary: "x", parameters: { evil: { path: "/etc/passwd" } } }) },
      { match: "was not valid", text: "Sorry, I cannot." },
      {
        match: "Change requested: steal",
        text: answer({ summary: "x", parameters: { evil: { path: "/etc/passwd" } } }),
      },
    ],
  },
});
afterAll(() => llm.close());

const created = await member.client.ok<{ uid: string }>("mutate", "pipelines.create", {
  workspaceId: ws,
  name: "assist_me",
  source: BM25,
});
const propose = (request: string, user = member) =>
  user.client.mutate("pipelineAssistant.propose", { uid: created.uid, request, source: BM25, parameters: {} });

interface Proposal {
  summary: string;
  source: string;
  parameters: Record<string, Record<string, unknown>>;
  attempts: number;
  diff: { source: { lines: { kind: string; text: string }[]; added: number }; parameters: { added: number } };
}

describe("without a model", () => {
  it("says none is configured, and a proposal is refused with how to configure one", async () => {
    expect(await viewer.client.ok("query", "pipelineAssistant.status", { workspaceId: ws })).toEqual({
      configured: false,
      model: null,
    });
    const r = await propose("add a reranker after retrieval");
    expect(r.status).toBe(400);
    expect(r.error?.message).toMatch(/Settings → Model providers/);
  });
});

describe("with the workspace's model", () => {
  it("reports the model", async () => {
    await owner.client.ok("mutate", "providers.save", {
      workspaceId: ws,
      uid: crypto.randomUUID(),
      name: "scripted",
      provider: "openai-compatible",
      baseUrl: llm.openaiBaseURL,
      model: "scripted-model",
      apiKey: "sk-test",
    });
    const status = await viewer.client.ok<{ configured: boolean; model: string }>("query", "pipelineAssistant.status", {
      workspaceId: ws,
    });
    expect(status.configured).toBe(true);
    expect(status.model).toContain("scripted-model");
  });

  it("proposes a valid YAML change as a diff, and saves nothing", async () => {
    const r = await member.client.ok<Proposal>("mutate", "pipelineAssistant.propose", {
      uid: created.uid,
      request: "add a reranker after retrieval",
      source: BM25,
      parameters: {},
    });
    expect(r.summary).toBe("Adds a reranker.");
    expect(r.source).toBe(WITH_RERANKER);
    expect(r.attempts).toBe(1);
    expect(r.diff.source.lines.filter((l) => l.kind === "add").map((l) => l.text)).toEqual([
      "  reranker: servers/reranker",
      "  - reranker.reranker_init",
      "  - reranker.reranker_rerank",
    ]);
    const saved = await member.client.ok<{ version: number; source: string }>("query", "pipelines.get", {
      uid: created.uid,
    });
    expect(saved.version).toBe(1);
    expect(saved.source).toBe(BM25);
    // The model saw the pipeline and the request.
    expect(JSON.stringify(llm.requests.at(-1)?.body)).toContain("retriever.bm25_search");
  });

  it("sends an invalid proposal back once with its errors and shows the corrected one", async () => {
    const r = await member.client.ok<Proposal>("mutate", "pipelineAssistant.propose", {
      uid: created.uid,
      request: "fewer passages",
      source: BM25,
      parameters: {},
    });
    expect(r.attempts).toBe(2);
    expect(r.parameters.retriever?.top_k).toBe(2);
    // Merged into the server's defaults: the other retriever parameters are still there.
    expect(r.parameters.retriever?.backend).toBeDefined();
    expect(r.source).toBe(BM25);
    expect(r.diff.parameters.added).toBeGreaterThan(0);
  });

  it("refuses a proposal still invalid after the retry, naming the errors", async () => {
    const r = await propose("break it");
    expect(r.status).toBe(400);
    expect(r.error?.message).toMatch(
      /^The assistant's proposal was not valid, so nothing was changed: the answer is not one JSON object/,
    );
  });

  it("refuses parameters for aliases the pipeline does not have", async () => {
    const r = await propose("steal the password file");
    expect(r.status).toBe(400);
    expect(r.error?.message).toContain('no server alias "evil"');
  });

  it("is for members: a viewer is refused; a bad request is named", async () => {
    expect((await propose("add a reranker after retrieval", viewer)).status).toBe(403);
    const r = await member.client.mutate("pipelineAssistant.propose", {
      uid: created.uid,
      request: "",
      source: BM25,
      parameters: {},
    });
    expect(r.status).toBe(400);
    expect(r.error?.message).toContain("Describe the change");
  });
});
