/**
 * Pipeline runs started from the web app (run service, origin "app"), against a real database:
 * who may start one, the process policy, knowledge bases of the run's workspace (and only those),
 * memory kept per user in the database, and the workspace's model connection for model steps.
 */
import { createOutboundPolicy } from "../net/outbound.ts";
import { createHash, randomUUID } from "node:crypto";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedDb, type TestConfig } from "../../test/helpers/db.ts";
import type { Actor } from "../auth/access.ts";
import type { Db } from "../db/client.ts";
import { createEventBus } from "../events/bus.ts";
import { createInProcessQueue, type JobQueue } from "../jobs/queue.ts";
import { createKnowledgeService, type KnowledgeService } from "../knowledge/service.ts";
import { knowledgeBasesForRun } from "../knowledge/pipeline-access.ts";
import { startScriptedServer } from "../llm/scripted/server.ts";
import { createProviderService, type ProviderService } from "../providers/service.ts";
import { workspaceRunModel } from "../providers/workspace-model.ts";
import { createIndexCache, type IndexCache } from "../retrieval/store/index.ts";
import { searchStoreUri } from "../snapshots/storage.ts";
import { repoRoot } from "./dsl/test-support.ts";
import { tempDir } from "./engine/test-support.ts";
import type { ExternalServerSpec } from "./registry.ts";
import { createRunService } from "./runs.ts";
import type { PipelineServer } from "./servers/contract.ts";
import { defineServer } from "./servers/define.ts";

const log = pino({ level: "silent" });
let db: Db;
let t: TestConfig;
let close: () => Promise<void>;
let queue: JobQueue;
let searchIndexes: IndexCache;
let knowledge: KnowledgeService;
const llm = await startScriptedServer({
  script: { rules: [{ match: "What mainly causes the tides?", text: "\\boxed{the Moon}" }, { text: "\\boxed{lava}" }] },
});

type Team = { workspaceId: string; owner: Actor; member: Actor; viewer: Actor };
let a: Team;
let b: Team;

async function user(name: string): Promise<NonNullable<Actor>> {
  const id = randomUUID();
  await db.user.create({ data: { id, name, email: `${id}@example.com` } });
  return { userId: id, name, email: `${id}@example.com` };
}

async function team(name: string): Promise<Team> {
  const workspaceId = (await db.workspace.create({ data: { name } })).id;
  const out = {
    workspaceId,
    owner: await user(`${name}-o`),
    member: await user(`${name}-m`),
    viewer: await user(`${name}-v`),
  };
  for (const [role, actor] of [
    ["owner", out.owner],
    ["member", out.member],
    ["viewer", out.viewer],
  ] as const)
    await db.membership.create({ data: { workspaceId, userId: actor!.userId, role } });
  return out;
}

/** A knowledge base in the team's workspace holding the gallery's two sample documents, indexed. */
async function sampleBase(team: Team, name: string) {
  const base = await knowledge.create(team.member, { workspaceId: team.workspaceId, name, embedder: "local" });
  const row = await knowledge.baseForUpload(team.member, base.uid);
  const incoming = path.join(t.config.dataDir, "incoming-test");
  await mkdir(incoming, { recursive: true });
  const files = [];
  for (const doc of ["tides.md", "volcanoes.txt"]) {
    const bytes = readFileSync(path.join(repoRoot, "pipelines/data/docs", doc));
    const file = path.join(incoming, `${randomUUID()}-${doc}`);
    await writeFile(file, bytes);
    files.push({
      name: doc,
      path: file,
      bytes: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });
  }
  await knowledge.addDocuments(row, files);
  await queue.idle();
  expect((await knowledge.get(team.member, base.uid)).status).toBe("ready");
}

beforeAll(async () => {
  ({ db, t, close } = await openMigratedDb());
  queue = createInProcessQueue({ concurrency: 1, log });
  searchIndexes = createIndexCache(searchStoreUri(t.config));
  knowledge = createKnowledgeService({
    db,
    config: t.config,
    queue,
    events: createEventBus({ db, log }),
    log,
    searchIndexes,
  });
  queue.register("knowledge.index", knowledge.indexJob.handler, knowledge.indexJob.options);
  a = await team("a");
  b = await team("b");
  await sampleBase(a, "Sample documents");
  await sampleBase(b, "Other documents");
});
afterAll(async () => {
  await queue.close();
  await searchIndexes.close();
  await llm.close();
  await close();
});

/** A stand-in for the MCP client: records what would have been started. */
function recorder() {
  const started: ExternalServerSpec[] = [];
  const external = (spec: ExternalServerSpec): PipelineServer => {
    started.push(spec);
    return {
      name: "ext",
      signature: async () => ({ tools: { hello: { input: {}, output: ["msg"] } }, prompts: {}, parameters: {} }),
      call: async () => ({ msg: "hi" }),
      close: async () => undefined,
    };
  };
  return { started, external };
}

const runService = (opts: { allowProcesses?: boolean; external?: ReturnType<typeof recorder>["external"] } = {}) =>
  createRunService({
    db,
    events: createEventBus({ db, log }),
    log,
    searchIndexes,
    outbound: createOutboundPolicy({ allow: ["127.0.0.1"] }),
    ...(opts.allowProcesses ? { allowProcesses: true } : {}),
    ...(opts.external ? { engine: { external: opts.external } } : {}),
  });

describe("who may start a pipeline from the web app", () => {
  it("members and owners of the workspace; viewers and outsiders are refused before anything is recorded", async () => {
    const dir = tempDir({ "p.yaml": "servers:\n  sayhello: servers/sayhello\npipeline:\n- sayhello.greet\n" });
    try {
      const runs = runService();
      const ok = await runs.run({
        file: "p.yaml",
        cwd: dir.dir,
        origin: "app",
        actor: a.member,
        workspaceId: a.workspaceId,
      });
      expect(ok).toMatchObject({ status: "completed" });
      expect((await db.pipelineRun.findUniqueOrThrow({ where: { uid: ok.uid } })).createdById).toBe(a.member!.userId);
      const before = await db.pipelineRun.count();
      await expect(
        runs.run({ file: "p.yaml", cwd: dir.dir, origin: "app", actor: a.viewer, workspaceId: a.workspaceId }),
      ).rejects.toThrow("only a member or owner can make changes here");
      await expect(
        runs.run({ file: "p.yaml", cwd: dir.dir, origin: "app", actor: b.owner, workspaceId: a.workspaceId }),
      ).rejects.toThrow("You are not a member of this workspace.");
      await expect(
        runs.run({ file: "p.yaml", cwd: dir.dir, origin: "app", actor: null, workspaceId: a.workspaceId }),
      ).rejects.toThrow("Sign in to continue.");
      expect(await db.pipelineRun.count()).toBe(before);
    } finally {
      dir.cleanup();
    }
  });
});

describe("processes (PIPELINES_ALLOW_PROCESSES)", () => {
  const files = {
    "stdio.yaml": "servers:\n  ext: stdio:node my-server.js --port 1\npipeline:\n- ext.hello\n",
    "py.yaml": "servers:\n  ext: servers/mine\npipeline:\n- ext.hello\n",
    "servers/mine/parameter.yaml": "path: servers/mine/src/mine.py\n",
  };

  it("a web-app run starts no process by default: the run fails before anything starts, saying why", async () => {
    const dir = tempDir(files);
    try {
      const { started, external } = recorder();
      const runs = runService({ external });
      for (const file of ["stdio.yaml", "py.yaml"]) {
        const r = await runs.run({ file, cwd: dir.dir, origin: "app", actor: a.owner, workspaceId: a.workspaceId });
        expect(r.status).toBe("failed");
        expect(r.error).toMatch(
          /for alias `ext` would start a process on the server \(`(node my-server\.js --port 1|python servers\/mine\/src\/mine\.py)`\): pipelines started from the web app may not start processes\. The server's operator can allow it for workspace owners with PIPELINES_ALLOW_PROCESSES=true\.$/,
        );
        expect((await runs.history(r.uid)).at(-1)).toMatchObject({ type: "error", payload: { message: r.error } });
      }
      expect(started).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });

  it("allowed by the operator: owners only; the CLI keeps UltraRAG's behaviour", async () => {
    const dir = tempDir(files);
    try {
      const { started, external } = recorder();
      const runs = runService({ allowProcesses: true, external });
      const member = await runs.run({
        file: "stdio.yaml",
        cwd: dir.dir,
        origin: "app",
        actor: a.member,
        workspaceId: a.workspaceId,
      });
      expect(member.error).toMatch(/: only a workspace owner may run a pipeline that starts processes/);
      expect(started).toEqual([]);
      const owner = await runs.run({
        file: "stdio.yaml",
        cwd: dir.dir,
        origin: "app",
        actor: a.owner,
        workspaceId: a.workspaceId,
      });
      expect(owner.status).toBe("completed");
      expect(started.map((s) => s.transport === "stdio" && s.command)).toEqual(["node"]);
      const cli = await runService({ external }).run({ file: "py.yaml", cwd: dir.dir });
      expect(cli.status).toBe("completed");
      expect(started.map((s) => s.transport === "stdio" && [s.command, ...s.args].join(" "))).toEqual([
        "node my-server.js --port 1",
        "python servers/mine/src/mine.py",
      ]);
    } finally {
      dir.cleanup();
    }
  });
});

describe("knowledge bases (collection_name: kb:<name>)", () => {
  const scripted = {
    generation: {
      backend: "openai",
      backend_configs: { openai: { model_name: "s", base_url: llm.openaiBaseURL, api_key: "k", concurrency: 1 } },
    },
  };
  let dir: { dir: string; cleanup: () => void };
  beforeAll(() => {
    dir = tempDir();
    cpSync(path.join(repoRoot, "pipelines"), dir.dir, { recursive: true });
    return () => dir.cleanup();
  });

  it("the gallery's kb_rag retrieves the documents uploaded to the workspace's base and answers from them", async () => {
    const r = await runService().run({
      file: "kb_rag.yaml",
      cwd: dir.dir,
      origin: "app",
      actor: a.member,
      workspaceId: a.workspaceId,
      overrides: scripted,
    });
    expect(r).toMatchObject({ status: "completed", error: null });
    const memory = JSON.parse(readFileSync(r.memoryFile!, "utf8")) as {
      step: string;
      memory: Record<string, unknown>;
    }[];
    const retrieved = memory.find((s) => s.step === "retriever.retriever_search")!.memory.memory_ret_psg as string[][];
    expect(retrieved[0]![0]).toMatch(/gravity of the Moon/);
    expect(retrieved[1]![0]).toMatch(/it is called lava/);
    const evaluated = memory.find((s) => s.step === "evaluation.evaluate")!.memory.memory_eval_res as Record<
      string,
      unknown
    >;
    expect(evaluated.avg_em).toBe(1);
  });

  it("another workspace's base is not found — the same sentence as a name that exists nowhere", async () => {
    for (const [name, team] of [
      ["Sample documents", b],
      ["No such base", a],
    ] as const) {
      const r = await runService().run({
        file: "kb_rag.yaml",
        cwd: dir.dir,
        origin: "app",
        actor: team.member,
        workspaceId: team.workspaceId,
        overrides: { ...scripted, retriever: { collection_name: `kb:${name}` } },
      });
      expect(r.status).toBe("failed");
      expect(r.error).toBe(
        `Step retriever.retriever_search failed: retriever.retriever_search: No knowledge base named “${name}” in this workspace. A pipeline run reads only the knowledge bases of the workspace it runs in; check the name on the Knowledge page.`,
      );
    }
  });
});

describe("memory in the database", () => {
  const files = {
    "data/q.jsonl": '{"question": "Where do I keep my bike?", "golden_answers": ["shed"]}\n',
    "data/corpus.jsonl": '{"contents": "unused"}\n',
    "m.yaml": [
      "servers:",
      "  benchmark: servers/benchmark",
      "  memory: servers/memory",
      "  retriever: servers/retriever",
      "  toy: servers/toy",
      "pipeline:",
      "- benchmark.get_data",
      "- memory.get_global_memory",
      "- retriever.retriever_init",
      "- retriever.retriever_project_memory_search",
      "- toy.echo",
      "",
    ].join("\n"),
    "parameter/m_parameter.yaml": [
      "benchmark:",
      "  benchmark: {name: m, path: data/q.jsonl, key_map: {q_ls: question, gt_ls: golden_answers}}",
      "memory: {user_id: default}",
      "",
    ].join("\n"),
  };

  it("each user's turns are saved per workspace and found again by their next runs only; no files are written", async () => {
    const dir = tempDir(files);
    try {
      const { TEST_BUILTINS } = await import("./engine/test-support.ts");
      const runs = createRunService({
        db,
        events: createEventBus({ db, log }),
        log,
        engine: { builtins: TEST_BUILTINS },
      });
      const retriever = { backend: "bm25", corpus_path: "data/corpus.jsonl", top_k: 3 };
      const run = (actor: Actor, workspaceId: string, overrides = {}) =>
        runs.run({
          file: "m.yaml",
          cwd: dir.dir,
          origin: "app",
          actor,
          workspaceId,
          overrides: { retriever, ...overrides },
        });
      const found = async (r: Awaited<ReturnType<typeof run>>) => {
        expect(r).toMatchObject({ status: "completed" });
        const memory = JSON.parse(readFileSync(r.memoryFile!, "utf8")) as {
          step: string;
          memory: Record<string, unknown>;
        }[];
        const step = memory.find((s) => s.step === "retriever.retriever_project_memory_search")!;
        return step.memory.memory_project_memory_content;
      };
      expect(await found(await run(a.member, a.workspaceId))).toEqual([[]]);
      const row = await db.pipelineMemory.findUniqueOrThrow({
        where: {
          workspaceId_userId_profile: { workspaceId: a.workspaceId, userId: a.member!.userId, profile: "default" },
        },
        include: { turns: true },
      });
      expect(row.global).toBe("# MEMORY\n");
      expect(row.turns.map((x) => [x.question, x.answer])).toEqual([
        ["Where do I keep my bike?", "Where do I keep my bike?!"],
      ]);
      // The same user's next run finds it; another user, another workspace or another profile does not.
      expect(await found(await run(a.member, a.workspaceId))).toEqual([
        ["- user: Where do I keep my bike?\n- assistant: Where do I keep my bike?!"],
      ]);
      expect(await found(await run(a.owner, a.workspaceId))).toEqual([[]]);
      await db.membership.create({ data: { workspaceId: b.workspaceId, userId: a.member!.userId, role: "member" } });
      expect(await found(await run(a.member, b.workspaceId))).toEqual([[]]);
      expect(await found(await run(a.member, a.workspaceId, { memory: { user_id: "work" } }))).toEqual([[]]);
      expect(existsSync(path.join(dir.dir, "ui"))).toBe(false);
    } finally {
      dir.cleanup();
    }
  });

  it("a user_id that is not a plain name fails the step", async () => {
    const dir = tempDir(files);
    try {
      writeFileSync(
        path.join(dir.dir, "parameter/m_parameter.yaml"),
        files["parameter/m_parameter.yaml"].replace("user_id: default", "user_id: ../x"),
      );
      const { TEST_BUILTINS } = await import("./engine/test-support.ts");
      const runs = createRunService({
        db,
        events: createEventBus({ db, log }),
        log,
        engine: { builtins: TEST_BUILTINS },
      });
      const r = await runs.run({
        file: "m.yaml",
        cwd: dir.dir,
        origin: "app",
        actor: a.member,
        workspaceId: a.workspaceId,
      });
      expect(r.error).toBe(
        `Step memory.get_global_memory failed: memory.get_global_memory: user_id must be letters, digits, '_' or '-', got string "../x"`,
      );
    } finally {
      dir.cleanup();
    }
  });
});

describe("the running-run limit (maxRunning)", () => {
  it("is atomic: of five concurrent starts with room for two, exactly two run", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const wait = defineServer({
      name: "wait",
      defaults: {},
      tools: { hold: { params: [], output: "->", run: async () => (await gate, {}) } },
    });
    const dir = tempDir({ "p.yaml": "servers:\n  wait: servers/wait\npipeline:\n- wait.hold\n" });
    const crew = await team("limit");
    try {
      const runs = createRunService({ db, events: createEventBus({ db, log }), log, engine: { builtins: { wait } } });
      const input = {
        file: "p.yaml",
        cwd: dir.dir,
        origin: "app" as const,
        actor: crew.member,
        workspaceId: crew.workspaceId,
        maxRunning: 2,
      };
      const tries = await Promise.allSettled(Array.from({ length: 5 }, () => runs.start(input)));
      const ok = tries.filter((t) => t.status === "fulfilled");
      expect(ok).toHaveLength(2);
      for (const t of tries)
        if (t.status === "rejected")
          expect(String(t.reason)).toMatch(/2 runs are already running in this workspace; wait for one to finish/);
      expect(await db.pipelineRun.count({ where: { workspaceId: crew.workspaceId } })).toBe(2);
      release();
      for (const t of ok) expect((await t.value.done).status).toBe("completed");
      // Room again once they have finished.
      expect((await (await runs.start(input)).done).status).toBe("completed");
    } finally {
      release();
      dir.cleanup();
    }
  });
});

describe("knowledge-base search: the app's search box and pipelines count the same documents", () => {
  it("a document waiting to be re-indexed still counts in both; a failed one in neither", async () => {
    const base = (await knowledge.list(a.member, a.workspaceId)).find((x) => x.name === "Sample documents")!;
    const row = await db.knowledgeBase.findUniqueOrThrow({ where: { uid: base.uid } });
    const tides = await db.knowledgeDocument.findFirstOrThrow({ where: { knowledgeBaseId: row.id, name: "tides.md" } });
    const forRun = knowledgeBasesForRun({ db, searchIndexes }, a.workspaceId);
    const both = async () => ({
      app: (await knowledge.search(a.member, { uid: base.uid, query: "tides Moon", mode: "hybrid", k: 10 })).map(
        (h) => h.documentName,
      ),
      run: (await forRun.search("Sample documents", ["tides Moon"], 10))[0]!.some((t) => /tide/i.test(t.text)),
    });
    // The run gets each chunk's calibrated relevance with its text (the retriever's ret_scores).
    const [hits] = await forRun.search("Sample documents", ["tides Moon"], 10);
    expect(hits![0]!.text).toMatch(/tide/i);
    expect(hits!.every((h) => h.score >= 0 && h.score <= 1)).toBe(true);
    expect(hits![0]!.score).toBeGreaterThan(hits!.at(-1)!.score);
    try {
      await db.knowledgeDocument.update({ where: { id: tides.id }, data: { status: "pending" } });
      let seen = await both();
      expect(seen.app).toContain("tides.md");
      expect(seen.run).toBe(true);
      await db.knowledgeDocument.update({ where: { id: tides.id }, data: { status: "failed" } });
      seen = await both();
      expect(seen.app).not.toContain("tides.md");
      expect(seen.run).toBe(false);
    } finally {
      await db.knowledgeDocument.update({ where: { id: tides.id }, data: { status: "ready" } });
    }
  });
});

describe("outbound requests of web-app runs (SSRF guard)", () => {
  it("a model base_url on an internal address is refused unless the operator allows the host; the CLI is not checked", async () => {
    const params = (base: string) =>
      JSON.stringify({
        generation: {
          backend: "openai",
          backend_configs: { openai: { model_name: "scripted", base_url: base, api_key: "k" } },
          sampling_params: {},
          extra_params: {},
          system_prompt: "",
        },
      });
    const dir = tempDir({
      "p.yaml": "servers:\n  generation: servers/generation\npipeline:\n- generation.generation_init\n",
      "parameter/p_parameter.yaml": params(llm.openaiBaseURL),
      "m.yaml": "servers:\n  generation: servers/generation\npipeline:\n- generation.generation_init\n",
      "parameter/m_parameter.yaml": params("http://169.254.169.254/v1"),
    });
    try {
      const strict = createRunService({ db, events: createEventBus({ db, log }), log });
      const app = { cwd: dir.dir, origin: "app" as const, actor: a.member, workspaceId: a.workspaceId };
      const refused = await strict.run({ file: "p.yaml", ...app });
      expect(refused.status).toBe("failed");
      expect(refused.error).toContain(
        `generation.generation_init: backend_configs.openai.base_url ${llm.openaiBaseURL} is refused: Argus only sends requests to hosts on the public internet`,
      );
      expect((await strict.run({ file: "m.yaml", ...app })).error).toMatch(/169\.254\.169\.254\/v1 is refused/);
      // The operator's allow list (PIPELINES_ALLOWED_HOSTS), and the CLI, which keeps UltraRAG's behaviour.
      expect((await runService().run({ file: "p.yaml", ...app })).status).toBe("completed");
      expect((await strict.run({ file: "p.yaml", cwd: dir.dir })).status).toBe("completed");
    } finally {
      dir.cleanup();
    }
  });
});

describe("the workspace's model connection (issue 28: pipelines use the workspace's model)", () => {
  let dir: { dir: string; cleanup: () => void };
  let providers: ProviderService;
  beforeAll(() => {
    dir = tempDir();
    cpSync(path.join(repoRoot, "pipelines"), dir.dir, { recursive: true });
    providers = createProviderService(
      db,
      t.config,
      "test-auth-secret-0123456789abcdef",
      fetch,
      createOutboundPolicy({ allow: ["127.0.0.1"] }),
    );
    return () => dir.cleanup();
  });
  const withModel = () =>
    createRunService({
      db,
      events: createEventBus({ db, log }),
      log,
      searchIndexes,
      outbound: createOutboundPolicy({ allow: ["127.0.0.1"] }),
      workspaceModel: (workspaceId) => workspaceRunModel(db, providers, workspaceId),
    });
  const connection = (workspaceId: string, name: string, model: string, isDefault = false) =>
    db.providerConnection.create({
      data: {
        uid: randomUUID(),
        workspaceId,
        name,
        provider: "openai-compatible",
        baseUrl: llm.openaiBaseURL,
        model,
        isDefault,
      },
    });

  it("a gallery pipeline whose parameters name no model runs on the workspace's default connection, and says which", async () => {
    const team = await teamWith("models-a");
    await connection(team.workspaceId, "A first by name", "model-a");
    await connection(team.workspaceId, "Team model", "model-default", true);
    const before = llm.requests.length;
    const r = await withModel().run({
      file: "vanilla_llm.yaml",
      cwd: dir.dir,
      origin: "app",
      actor: team.member,
      workspaceId: team.workspaceId,
    });
    expect(r).toMatchObject({ status: "completed", error: null, modelConnection: "Team model · model-default" });
    const sent = llm.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent.map((q) => q.body.model))).toEqual(new Set(["model-default"]));
  });

  it("parameters that name their own server and model keep them (no workspace connection recorded)", async () => {
    const team = await teamWith("models-b");
    await connection(team.workspaceId, "Team model", "model-default", true);
    const before = llm.requests.length;
    const r = await withModel().run({
      file: "vanilla_llm.yaml",
      cwd: dir.dir,
      origin: "app",
      actor: team.member,
      workspaceId: team.workspaceId,
      overrides: {
        generation: {
          backend: "openai",
          backend_configs: { openai: { model_name: "own-model", base_url: llm.openaiBaseURL, api_key: "k" } },
        },
      },
    });
    expect(r).toMatchObject({ status: "completed", modelConnection: null });
    expect(new Set(llm.requests.slice(before).map((q) => q.body.model))).toEqual(new Set(["own-model"]));
  });

  it("a workspace without a usable model: the step fails saying where to add one", async () => {
    const team = await teamWith("models-c");
    const r = await withModel().run({
      file: "vanilla_llm.yaml",
      cwd: dir.dir,
      origin: "app",
      actor: team.member,
      workspaceId: team.workspaceId,
    });
    expect(r.status).toBe("failed");
    expect(r.error).toMatch(/this workspace has no model connection: add one in Settings → Model providers/);
  });
});

async function teamWith(name: string): Promise<Team> {
  return team(`${name}-${randomUUID().slice(0, 6)}`);
}
