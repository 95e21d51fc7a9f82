/**
 * Chat with a pipeline over tRPC against the real server and the scripted model: which pipelines can
 * chat and why the others cannot, a first turn that runs the pipeline (answer with citations and
 * sources), a follow-up that carries the first turn to the model, who may do what, bad input, and
 * the exports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../llm/scripted/server.ts";
import { zipEntryText } from "../../../test/helpers/unzip.ts";
import { inviteAndSignUp, type TestUser } from "../../../test/helpers/server.ts";
import { startServerWithTeam } from "./test-support.ts";

const { owner, member, viewer } = await startServerWithTeam();
const ws = owner.workspaceId;

interface Turn {
  uid: string;
  role: string;
  body: string;
  status: string;
  mode: string | null;
  runUid: string | null;
  sources: { id: number; title: string; content: string }[];
  error: string | null;
}
interface Session {
  uid: string;
  title: string;
  pipelineTitle: string;
  turns: Turn[];
  canAsk: boolean;
  canRename: boolean;
  canDelete: boolean;
}

let llm: ScriptedServer;
let pipelineUid = "";
let sessionUid = "";
let other: TestUser;

beforeAll(async () => {
  llm = await startScriptedServer({
    script: {
      rules: [
        { match: "How tall", text: ["It is 8,849 metres ", "tall [1]."] },
        { text: ["Mount Everest ", "is the highest mountain [1]."] },
      ],
    },
  });
  other = await inviteAndSignUp(owner, "member", "Max");
  // rag_citation forked, its generation pointed at the scripted model.
  const fork = await member.client.ok<{ uid: string }>("mutate", "pipelines.fork", {
    workspaceId: ws,
    key: "rag_citation",
    name: "cite_chat",
  });
  pipelineUid = fork.uid;
  const g = await member.client.ok<{ parameters: Record<string, Record<string, unknown>> }>(
    "query",
    "pipelines.gallery",
    { workspaceId: ws, key: "rag_citation" },
  );
  const generation = g.parameters.generation as { backend_configs: Record<string, Record<string, unknown>> };
  await member.client.ok("mutate", "pipelines.save", {
    uid: pipelineUid,
    source: (await member.client.ok<{ source: string }>("query", "pipelines.get", { uid: pipelineUid })).source,
    parameters: {
      ...g.parameters,
      generation: {
        ...generation,
        backend_configs: {
          ...generation.backend_configs,
          openai: {
            ...generation.backend_configs.openai,
            model_name: "scripted",
            base_url: llm.openaiBaseURL,
            api_key: "sk-chat-key",
            retries: 0,
          },
        },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await llm?.close();
});

async function settled(uid: string, user: TestUser = member): Promise<Session> {
  for (let i = 0; i < 300; i++) {
    const s = await user.client.ok<Session>("query", "pipelineChat.get", { uid });
    if (!s.turns.some((t) => t.status === "running")) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`session ${uid} kept running`);
}

describe("which pipelines can chat", () => {
  it("offers the ones that read a question and write an answer, and says why the others cannot", async () => {
    const list = await viewer.client.ok<
      { kind: string; name: string; ok: boolean; reason: string | null; target: unknown }[]
    >("query", "pipelineChat.pipelines", { workspaceId: ws });
    const by = (name: string) => list.find((p) => p.name === name)!;
    expect(by("cite_chat")).toMatchObject({ kind: "workspace", ok: true, reason: null });
    expect(by("vanilla_rag")).toMatchObject({ kind: "gallery", ok: true });
    expect(by("bm25_search")).toMatchObject({ ok: false, reason: expect.stringContaining("writes no answer") });
    expect(by("eval_trec")).toMatchObject({ ok: false, reason: expect.stringContaining("reads no questions") });
  });

  it("refuses a session with a pipeline that cannot chat, or an invalid one, with the reason", async () => {
    const r = await member.client.mutate("pipelineChat.create", { target: { workspaceId: ws, key: "bm25_search" } });
    expect(r.status).toBe(400);
    expect(r.error?.message).toMatch(/cannot chat.*writes no answer/);
    const draft = await member.client.ok<{ uid: string }>("mutate", "pipelines.create", {
      workspaceId: ws,
      name: "broken_chat",
      source: "servers:\n  sayhello: servers/sayhello\npipeline:\n  - sayhello.gret\n",
    });
    const bad = await member.client.mutate("pipelineChat.create", { target: { uid: draft.uid } });
    expect(bad.status).toBe(400);
    expect(bad.error?.message).toMatch(/not valid, so it cannot run: broken_chat.yaml:4:5: .*no tool `gret`/);
  });

  it("refuses an empty or oversized question, and a model that is not set up, naming the parameter", async () => {
    const fork = await member.client.ok<{ uid: string }>("mutate", "pipelines.fork", {
      workspaceId: ws,
      key: "vanilla_llm",
      name: "no_model",
    });
    const g = await member.client.ok<{ parameters: Record<string, Record<string, unknown>> }>(
      "query",
      "pipelines.gallery",
      { workspaceId: ws, key: "vanilla_llm" },
    );
    const generation = g.parameters.generation as { backend_configs: Record<string, Record<string, unknown>> };
    await member.client.ok("mutate", "pipelines.save", {
      uid: fork.uid,
      source: (await member.client.ok<{ source: string }>("query", "pipelines.get", { uid: fork.uid })).source,
      parameters: {
        ...g.parameters,
        generation: {
          ...generation,
          backend_configs: {
            ...generation.backend_configs,
            openai: { ...generation.backend_configs.openai, model_name: "" },
          },
        },
      },
    });
    const s = await member.client.ok<{ uid: string }>("mutate", "pipelineChat.create", { target: { uid: fork.uid } });
    const before = llm.requests.length;
    const long = await member.client.mutate("pipelineChat.send", { uid: s.uid, text: "x".repeat(4001) });
    expect(long.status).toBe(400);
    expect(long.error?.message).toMatch(/under 4,000 characters/);
    const empty = await member.client.mutate("pipelineChat.send", { uid: s.uid, text: "   " });
    expect(empty.status).toBe(400);
    expect(empty.error?.message).toMatch(/Type a question first/);
    const unset = await member.client.mutate("pipelineChat.send", { uid: s.uid, text: "Hello?" });
    expect(unset.status).toBe(400);
    expect(unset.error?.message).toMatch(
      /No model is configured: generation.backend_configs.openai.model_name is empty/,
    );
    expect(llm.requests.length).toBe(before);
    expect((await member.client.ok<Session>("query", "pipelineChat.get", { uid: s.uid })).turns).toEqual([]);
  });
});

describe("a session", () => {
  it("first turn runs the pipeline: the answer cites its sources", async () => {
    const created = await member.client.ok<{ uid: string }>("mutate", "pipelineChat.create", {
      target: { uid: pipelineUid },
    });
    sessionUid = created.uid;
    const sent = await member.client.ok<{ answer: Turn; room: string }>("mutate", "pipelineChat.send", {
      uid: sessionUid,
      text: "Which mountain is the highest?",
    });
    expect(sent.answer).toMatchObject({ status: "running", mode: "pipeline" });
    expect(sent.room).toBe(`run:${sent.answer.runUid}`);
    const s = await settled(sessionUid);
    expect(s.title).toBe("Which mountain is the highest?");
    expect(s.turns.map((t) => [t.role, t.status])).toEqual([
      ["user", "done"],
      ["assistant", "done"],
    ]);
    const answer = s.turns[1]!;
    expect(answer.body).toBe("Mount Everest is the highest mountain [1].");
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(answer.sources.map((x) => x.id)).toContain(1);
    // Asking again while nothing runs is fine; the previous run's record is the pipeline's.
    const run = await member.client.ok<{ dataset: { kind: string; question: string } }>("query", "pipelines.run", {
      uid: answer.runUid,
    });
    expect(run.dataset).toMatchObject({ kind: "chat", question: "Which mountain is the highest?" });
  });

  it("a follow-up carries the first turn to the model and may cite the session's sources", async () => {
    const before = llm.requests.length;
    const sent = await member.client.ok<{ answer: Turn }>("mutate", "pipelineChat.send", {
      uid: sessionUid,
      text: "How tall is it?",
    });
    expect(sent.answer.mode).toBe("conversation");
    const s = await settled(sessionUid);
    const answer = s.turns[3]!;
    expect(answer).toMatchObject({ status: "done", body: "It is 8,849 metres tall [1]." });
    expect(answer.sources.map((x) => x.id)).toEqual([1]);
    const request = llm.requests.slice(before).find((r) => r.api === "chat")!;
    const messages = request.body.messages as { role: string; content: unknown }[];
    const text = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));
    expect(messages.filter((m) => m.role !== "system").map((m) => [m.role, text(m.content)])).toEqual([
      ["user", expect.stringContaining("Which mountain is the highest?")],
      ["assistant", expect.stringContaining("Mount Everest is the highest mountain [1].")],
      ["user", expect.stringContaining("How tall is it?")],
    ]);
    expect(text(messages.find((m) => m.role === "system")?.content)).toMatch(/Sources retrieved earlier[\s\S]*\[1\]/);
    // The key reached the model; it is in no file of the run.
    expect(request.headers.authorization).toBe("[redacted]");
  });

  it("the whole pipeline can run again for a follow-up on request", async () => {
    const sent = await member.client.ok<{ answer: Turn }>("mutate", "pipelineChat.send", {
      uid: sessionUid,
      text: "Which mountain is the highest? Search again.",
      fullPipeline: true,
    });
    expect(sent.answer.mode).toBe("pipeline");
    const s = await settled(sessionUid);
    expect(s.turns[5]).toMatchObject({ status: "done", mode: "pipeline" });
  });

  it("is listed newest first, and renamed by the member who started it", async () => {
    const second = await member.client.ok<{ uid: string }>("mutate", "pipelineChat.create", {
      target: { uid: pipelineUid },
    });
    const list = await viewer.client.ok<{ uid: string; title: string; mine: boolean }[]>(
      "query",
      "pipelineChat.sessions",
      { workspaceId: ws },
    );
    expect(list[0]!.uid).toBe(second.uid);
    expect(list.map((l) => l.uid)).toContain(sessionUid);
    await member.client.ok("mutate", "pipelineChat.rename", { uid: sessionUid, name: "Everest facts" });
    const again = await member.client.ok<{ uid: string; title: string }[]>("query", "pipelineChat.sessions", {
      workspaceId: ws,
    });
    expect(again.find((l) => l.uid === sessionUid)?.title).toBe("Everest facts");
    const blank = await member.client.mutate("pipelineChat.rename", { uid: sessionUid, name: "  " });
    expect(blank.status).toBe(400);
    expect(blank.error?.message).toMatch(/Give the session a name/);
  });

  it("viewers read it; other members read but cannot ask, rename or delete; an owner may delete", async () => {
    const asViewer = await viewer.client.ok<Session>("query", "pipelineChat.get", { uid: sessionUid });
    expect(asViewer).toMatchObject({ canAsk: false, canRename: false, canDelete: false });
    expect((await viewer.client.mutate("pipelineChat.send", { uid: sessionUid, text: "hi" })).status).toBe(403);
    const asOther = await other.client.ok<Session>("query", "pipelineChat.get", { uid: sessionUid });
    expect(asOther).toMatchObject({ canAsk: false, canDelete: false });
    const send = await other.client.mutate("pipelineChat.send", { uid: sessionUid, text: "hi" });
    expect(send.status).toBe(403);
    expect(send.error?.message).toMatch(/Only the member who started this session/);
    expect((await other.client.mutate("pipelineChat.rename", { uid: sessionUid, name: "Mine now" })).status).toBe(403);
    expect((await other.client.mutate("pipelineChat.delete", { uid: sessionUid })).status).toBe(403);
    expect((await owner.client.ok<Session>("query", "pipelineChat.get", { uid: sessionUid })).canDelete).toBe(true);
  });

  it("exports as Markdown and .docx with the questions, answers and numbered sources", async () => {
    const md = await viewer.client.ok<{ fileName: string; mimeType: string; base64: string }>(
      "query",
      "pipelineChat.export",
      { uid: sessionUid, format: "markdown" },
    );
    expect(md.fileName).toBe("Everest-facts.md");
    const text = Buffer.from(md.base64, "base64").toString("utf8");
    expect(text).toContain("# Everest facts");
    expect(text).toContain("## 1. Question\n\nWhich mountain is the highest?");
    expect(text).toContain("Mount Everest is the highest mountain [\\[1\\]](#turn-1-source-1).");
    expect(text).toContain('<a id="turn-1-source-1"></a>**[1]**');
    expect(text).toContain("## 2. Question\n\nHow tall is it?");

    const docx = await viewer.client.ok<{ fileName: string; base64: string }>("query", "pipelineChat.export", {
      uid: sessionUid,
      format: "docx",
    });
    expect(docx.fileName).toBe("Everest-facts.docx");
    const xml = await zipEntryText(Buffer.from(docx.base64, "base64"), "word/document.xml");
    expect(xml).toContain("Which mountain is the highest?");
    expect(xml).toContain("It is 8,849 metres tall ");
    // Each citation links to its source's bookmark below the answer.
    expect(xml).toMatch(/<w:hyperlink [^>]*w:anchor="turn2_source1"/);
    expect(xml).toMatch(/<w:bookmarkStart w:name="turn2_source1"/);
  });

  it("is deleted by the member who started it, and then gone", async () => {
    await member.client.ok("mutate", "pipelineChat.delete", { uid: sessionUid });
    expect((await member.client.query("pipelineChat.get", { uid: sessionUid })).status).toBe(404);
  });
});
