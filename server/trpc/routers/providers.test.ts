import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestConfig } from "../../../test/helpers/db.ts";
import {
  inviteAndSignUp,
  signUp,
  signUpInNewWorkspace,
  startTestServer,
  type TestServer,
  type TestUser,
} from "../../../test/helpers/server.ts";
import { startScriptedServer, type ScriptedServer } from "../../llm/scripted/server.ts";

const KEY = "sk-ant-test-0123456789-wxyz";

let server: TestServer;
let llm: ScriptedServer;
let ollama: Server;
let owner: TestUser;
let viewer: TestUser;

type Connection = {
  uid: string | null;
  source: string;
  name: string;
  provider: string;
  hasKey: boolean;
  apiKeyHint: string | null;
};
type TestResult = { ok: boolean; reply?: string; error?: string; model?: string };

beforeAll(async () => {
  llm = await startScriptedServer({
    script: [
      { match: "Reply with the single word OK", model: "claude-broken", status: 401, message: "invalid x-api-key" },
      { match: "Reply with the single word OK", text: "OK" },
    ],
  });
  // A stand-in for a local Ollama: GET /api/tags lists its models.
  ollama = createServer((req, res) => {
    res.writeHead(req.url === "/api/tags" ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify({ models: [{ name: "qwen3:8b" }, { name: "llama3.3:70b" }] }));
  });
  await new Promise<void>((resolve) => ollama.listen(0, "127.0.0.1", resolve));
  const ollamaUrl = `http://127.0.0.1:${(ollama.address() as AddressInfo).port}`;
  server = await startTestServer(await createTestConfig({ OLLAMA_URL: ollamaUrl }));
  owner = await signUp(server.url, { name: "Owner" });
  viewer = await inviteAndSignUp(owner, "viewer", "Viewer");
});

afterAll(async () => {
  await server?.stop();
  await llm?.close();
  await new Promise((resolve) => ollama?.close(resolve));
});

const save = (user: TestUser, fields: Record<string, unknown>) =>
  user.client.mutate<Connection>("providers.save", {
    // The viewer saves into the owner's workspace (and is refused); an owner of their own, into theirs.
    workspaceId: user.role === "owner" ? user.workspaceId : owner.workspaceId,
    uid: crypto.randomUUID(),
    ...fields,
  });

describe("provider connections", () => {
  it("a saved key is encrypted at rest and never returned; only its last four characters show", async () => {
    const r = await save(owner, {
      name: "Team Anthropic",
      provider: "anthropic",
      baseUrl: llm.anthropicBaseURL,
      model: "claude-sonnet-5-5",
      apiKey: KEY,
    });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ hasKey: true, apiKeyHint: "wxyz", source: "workspace" });
    const list = await owner.client.ok<Connection[]>("query", "providers.list", { workspaceId: owner.workspaceId });
    expect(list.map((c) => c.source)).toEqual(["workspace", "environment"]);
    expect(JSON.stringify(list)).not.toContain("0123456789");
    const row = await server.services.db.providerConnection.findUniqueOrThrow({ where: { uid: r.data.uid! } });
    expect(row.apiKeyCipher).toBeTruthy();
    expect(row.apiKeyCipher).not.toContain("0123456789");
  });

  it("Test connection sends one tiny request with the stored key and reports the reply", async () => {
    const saved = (
      await save(owner, {
        name: "Tested",
        provider: "anthropic",
        baseUrl: llm.anthropicBaseURL,
        model: "claude-sonnet-5-5",
        apiKey: KEY,
      })
    ).data;
    const before = llm.requests.length;
    const r = await owner.client.ok<TestResult>("mutate", "providers.test", { uid: saved.uid });
    expect(r).toMatchObject({ ok: true, reply: "OK", model: "claude-sonnet-5-5" });
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.max_tokens).toBe(16);
  });

  it("a provider error comes back verbatim, with provider, model and status", async () => {
    const r = await owner.client.ok<TestResult>("mutate", "providers.test", {
      workspaceId: owner.workspaceId,
      name: "draft",
      provider: "anthropic",
      baseUrl: llm.anthropicBaseURL,
      model: "claude-broken",
      apiKey: "sk-wrong",
    });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/anthropic \(claude-broken\) 401/);
    expect(r.error).toContain("invalid x-api-key");
    expect(r.error).not.toContain("sk-wrong");
  });

  it("an OpenAI-compatible connection needs a base URL and a model (400 naming the field)", async () => {
    const r = await save(owner, { name: "Local", provider: "openai-compatible" });
    expect(r.status).toBe(400);
    expect(r.error!.data.issues!.map((i) => i.path.join("."))).toEqual(expect.arrayContaining(["baseUrl", "model"]));
  });

  it("a base URL on an internal address is refused (SSRF guard) unless the operator allows its host", async () => {
    for (const baseUrl of ["http://10.0.0.5:8000/v1", "http://169.254.169.254/latest", "http://[::1]:11434/v1"]) {
      const r = await save(owner, { name: `Internal ${baseUrl}`, provider: "openai-compatible", baseUrl, model: "m" });
      expect(r.status).toBe(400);
      expect(r.error!.message).toContain(
        `The base URL ${baseUrl} is refused: Argus only sends requests to hosts on the public internet`,
      );
      const t = await owner.client.mutate("providers.test", {
        workspaceId: owner.workspaceId,
        name: "Draft",
        provider: "openai-compatible",
        baseUrl,
        model: "m",
      });
      expect(t.status).toBe(400);
    }
    // A public address, and the test server's loopback (PIPELINES_ALLOWED_HOSTS=127.0.0.1 in tests).
    for (const baseUrl of ["http://93.184.216.34/v1", llm.openaiBaseURL])
      expect(
        (await save(owner, { name: `Ok ${baseUrl}`, provider: "openai-compatible", baseUrl, model: "m" })).status,
      ).toBe(200);
  });

  it("two connections with the same name → 409", async () => {
    await save(owner, { name: "Twin", provider: "openai", apiKey: "sk-1" });
    const r = await save(owner, { name: "Twin", provider: "openai", apiKey: "sk-2" });
    expect(r.status).toBe(409);
    expect(r.error!.message).toMatch(/already exists/);
  });

  it("viewers can see connections but not add, test or delete them (403)", async () => {
    const list = await viewer.client.ok<Connection[]>("query", "providers.list", { workspaceId: owner.workspaceId });
    expect(list.length).toBeGreaterThan(1);
    expect((await save(viewer, { name: "Mine", provider: "openai", apiKey: "sk-x" })).status).toBe(403);
    const uid = list.find((c) => c.source === "workspace")!.uid;
    expect((await viewer.client.mutate("providers.test", { uid })).status).toBe(403);
    expect((await viewer.client.mutate("providers.delete", { uid })).status).toBe(403);
  });

  it("editing without a key keeps the stored one; deleting removes the connection", async () => {
    const uid = crypto.randomUUID();
    await save(owner, { uid, name: "Keep", provider: "anthropic", baseUrl: llm.anthropicBaseURL, apiKey: KEY });
    const edited = await save(owner, {
      uid,
      name: "Kept",
      provider: "anthropic",
      baseUrl: llm.anthropicBaseURL,
      model: "claude-sonnet-5-5",
    });
    expect(edited.data).toMatchObject({ name: "Kept", hasKey: true, apiKeyHint: "wxyz" });
    expect((await owner.client.ok<TestResult>("mutate", "providers.test", { uid })).ok).toBe(true);
    expect((await owner.client.mutate("providers.delete", { uid })).status).toBe(200);
    expect((await owner.client.mutate("providers.test", { uid })).status).toBe(404);
  });

  it("a local Ollama is detected with its models", async () => {
    const r = await owner.client.ok<{ reachable: boolean; models: string[]; baseUrl: string }>(
      "query",
      "providers.detectOllama",
      { workspaceId: owner.workspaceId },
    );
    expect(r.reachable).toBe(true);
    expect(r.models).toEqual(["qwen3:8b", "llama3.3:70b"]);
    expect(r.baseUrl).toMatch(/\/v1$/);
  });
});

describe("without a local Ollama", () => {
  let other: TestServer;
  afterAll(async () => other?.stop());

  it("detection says unreachable instead of failing", async () => {
    other = await startTestServer(await createTestConfig({ OLLAMA_URL: "http://127.0.0.1:9" }));
    const user = await signUp(other.url, { name: "Solo" });
    const r = await user.client.ok<{ reachable: boolean; models: string[] }>("query", "providers.detectOllama", {
      workspaceId: user.workspaceId,
    });
    expect(r).toMatchObject({ reachable: false, models: [] });
  });
});

describe("the workspace's default connection", () => {
  type Default = { uid: string | null; name: string; isDefault: boolean; usable: boolean } | null;

  it("a keyless server default is never the workspace default; an owner marks one connection, listed first", async () => {
    const fresh = await signUpInNewWorkspace(server, "Fresh owner");
    // The test server's environment default has no key: the workspace has no model yet.
    const env = (
      await fresh.client.ok<(Connection & { usable: boolean })[]>("query", "providers.list", {
        workspaceId: fresh.workspaceId,
      })
    ).find((c) => c.source === "environment")!;
    expect(env.usable).toBe(false);
    expect(
      await fresh.client.ok<Default>("query", "providers.workspaceDefault", { workspaceId: fresh.workspaceId }),
    ).toBe(null);

    const a = await save(fresh, {
      name: "A local",
      provider: "openai-compatible",
      baseUrl: llm.openaiBaseURL,
      model: "m",
    });
    const b = await save(fresh, { name: "B team", provider: "anthropic", baseUrl: llm.anthropicBaseURL, apiKey: KEY });
    expect([a.status, b.status], JSON.stringify([a.error, b.error])).toEqual([200, 200]);
    // Unmarked: the first by name.
    expect(
      await fresh.client.ok<Default>("query", "providers.workspaceDefault", { workspaceId: fresh.workspaceId }),
    ).toMatchObject({ name: "A local", isDefault: false, usable: true });

    expect(
      (await fresh.client.mutate("providers.setDefault", { workspaceId: fresh.workspaceId, uid: b.data!.uid })).status,
    ).toBe(200);
    const list = await fresh.client.ok<(Connection & { isDefault: boolean })[]>("query", "providers.list", {
      workspaceId: fresh.workspaceId,
    });
    expect(list.map((c) => [c.name, c.isDefault])).toEqual([
      ["B team", true],
      ["A local", false],
      ["Server default (environment)", false],
    ]);
    // One default at a time.
    await fresh.client.ok("mutate", "providers.setDefault", { workspaceId: fresh.workspaceId, uid: a.data!.uid });
    expect(
      await fresh.client.ok<Default>("query", "providers.workspaceDefault", { workspaceId: fresh.workspaceId }),
    ).toMatchObject({ name: "A local", isDefault: true });
    const marked = await server.services.db.providerConnection.count({
      where: { workspaceId: fresh.workspaceId, isDefault: true },
    });
    expect(marked).toBe(1);
  });

  it("only owners mark the default; another workspace's connection is not found", async () => {
    const mine = (
      await owner.client.ok<Connection[]>("query", "providers.list", { workspaceId: owner.workspaceId })
    ).find((c) => c.source === "workspace")!;
    expect(
      (await viewer.client.mutate("providers.setDefault", { workspaceId: owner.workspaceId, uid: mine.uid })).status,
    ).toBe(403);
    const other = await signUpInNewWorkspace(server, "Other owner");
    expect(
      (await other.client.mutate("providers.setDefault", { workspaceId: other.workspaceId, uid: mine.uid })).status,
    ).toBe(404);
  });
});
