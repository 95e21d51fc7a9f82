/**
 * servers/generation against the scripted LLM server (real HTTP, the real OpenAI SDK): UltraRAG's
 * request shape, concurrency with answers in order, its retry rule, demo-mode streaming, and the
 * refusals a user can act on.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { startScriptedServer } from "../../llm/scripted/server.ts";
import { tempDir } from "../engine/test-support.ts";
import type { CallContext } from "./contract.ts";
import { generation } from "./generation.ts";

const llm = await startScriptedServer({ script: { rules: [] } });
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const GEN = (over: Record<string, unknown> = {}) => ({
  backend: "openai",
  backend_configs: {
    openai: {
      model_name: "scripted",
      base_url: llm.openaiBaseURL,
      api_key: "sk-test",
      concurrency: 2,
      retries: 3,
      base_delay: 0.01,
      ...over,
    },
  },
  sampling_params: { temperature: 0.0, top_p: 1.0, max_tokens: 256 },
  extra_params: { chat_template_kwargs: { enable_thinking: false } },
});

async function connected(over: Record<string, unknown> = {}, ctx: Partial<CallContext> = {}) {
  const server = generation();
  await server.call("tool", "generation_init", GEN(over), { cwd: "/", ...ctx });
  return server;
}

describe("generation.generate", () => {
  it("reports each request's token usage to the step, as the model server counted it", async () => {
    llm.setScript([
      { match: "first", text: "one", usage: { input: 40, output: 7, cacheRead: 0, cacheWrite: 0 } },
      { match: "second", text: "two", usage: { input: 60, output: 3, cacheRead: 0, cacheWrite: 0 } },
    ]);
    const server = await connected();
    const seen: { input: number; output: number }[] = [];
    await server.call(
      "tool",
      "generate",
      { prompt_ls: ["first", "second"], system_prompt: "" },
      { cwd: "/", onUsage: (u) => seen.push(u) },
    );
    expect(seen.sort((a, b) => a.input - b.input)).toEqual([
      { input: 40, output: 7 },
      { input: 60, output: 3 },
    ]);
  });

  it("sends one non-streamed request per prompt, as UltraRAG does, and keeps the answers in order", async () => {
    llm.setScript([
      { match: "first", text: "one", delayMs: 80 },
      { match: "second", text: "two" },
      { match: "third", text: "three" },
    ]);
    const server = await connected();
    const out = await server.call(
      "tool",
      "generate",
      {
        prompt_ls: ["  first  ", { role: "user", content: { type: "text", text: "second" } }, "third"],
        system_prompt: "",
      },
      { cwd: "/" },
    );
    expect(out).toEqual({ ans_ls: ["one", "two", "three"] });
    expect(llm.requests).toHaveLength(3);
    const first = llm.requests.find((r) => r.lastUserText === "first")!.body;
    expect(first).toMatchObject({
      model: "scripted",
      messages: [{ role: "user", content: "first" }],
      temperature: 0,
      top_p: 1,
      max_tokens: 256,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(first.stream).not.toBe(true);
  });

  it("puts a non-blank system prompt first", async () => {
    llm.setScript([{ text: "ok" }]);
    const server = await connected();
    await server.call("tool", "generate", { prompt_ls: ["q"], system_prompt: "Be brief." }, { cwd: "/" });
    expect(llm.requests[0]!.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "q" },
    ]);
  });

  it("in demo mode answers only the first prompt, streamed as tokens (stream: true) — spec §2.12", async () => {
    llm.setScript([
      { match: "moon", text: ["Decem", "ber ", "1972"] },
      { match: "other", text: "fine" },
    ]);
    const tokens: string[] = [];
    const server = await connected();
    const out = await server.call(
      "tool",
      "generate",
      { prompt_ls: ["on the moon", "other"], system_prompt: "" },
      { cwd: "/", demo: true, fileAccess: "operator", onToken: (t) => tokens.push(t) },
    );
    expect(out).toEqual({ ans_ls: ["December 1972"] });
    expect(tokens).toEqual(["Decem", "ber ", "1972"]);
    expect(llm.requests.find((r) => r.lastUserText === "on the moon")!.body.stream).toBe(true);
    expect(llm.requests.find((r) => r.lastUserText === "other")).toBeUndefined();
  });

  it("retries only 5xx answers, `retries` attempts in all, and answers <error> when they run out", async () => {
    llm.setScript([
      { match: "flaky", status: 503, times: 2 },
      { match: "flaky", text: "recovered" },
      { match: "down", status: 500 },
    ]);
    const server = await connected({ retries: 3 });
    const out = await server.call(
      "tool",
      "generate",
      { prompt_ls: ["flaky", "down"], system_prompt: "" },
      { cwd: "/" },
    );
    expect(out).toEqual({ ans_ls: ["recovered", "<error>"] });
    expect(llm.requests.filter((r) => r.lastUserText === "flaky")).toHaveLength(3);
    expect(llm.requests.filter((r) => r.lastUserText === "down")).toHaveLength(3);
  });

  it("a refusal other than 5xx fails the step with the provider's words and a hint", async () => {
    llm.setScript([
      { match: "key", status: 401, message: "invalid api key" },
      { match: "busy", status: 429, message: "slow down" },
    ]);
    const server = await connected();
    await expect(
      server.call("tool", "generate", { prompt_ls: ["key"], system_prompt: "" }, { cwd: "/" }),
    ).rejects.toThrow(/generation\.generate: .*401.*invalid api key.*backend_configs\.openai\.api_key/);
    await expect(
      server.call("tool", "generate", { prompt_ls: ["busy"], system_prompt: "" }, { cwd: "/" }),
    ).rejects.toThrow(/429.*slow down/);
    expect(llm.requests.filter((r) => r.lastUserText === "busy")).toHaveLength(1);
  });

  it("needs generation_init first, and text prompts", async () => {
    await expect(generation().call("tool", "generate", { prompt_ls: ["q"] }, { cwd: "/" })).rejects.toThrow(
      "generation.generate: the model is not connected; run generation.generation_init first",
    );
    const server = await connected();
    await expect(server.call("tool", "generate", { prompt_ls: [42] }, { cwd: "/" })).rejects.toThrow(
      "generation.generate: prompt 0 must be text",
    );
    expect(await server.call("tool", "generate", { prompt_ls: [] }, { cwd: "/" })).toEqual({ ans_ls: [] });
  });
});

describe("generation.generation_init", () => {
  it("vllm and hf run on an OpenAI-compatible server, with a notice naming it", async () => {
    llm.setScript([{ text: "hi" }]);
    const notices: string[] = [];
    const server = generation();
    await server.call(
      "tool",
      "generation_init",
      {
        backend: "vllm",
        backend_configs: { vllm: { model_name_or_path: "openbmb/MiniCPM4-8B", base_url: llm.openaiBaseURL } },
        sampling_params: { temperature: 0.7 },
        extra_params: {},
      },
      { cwd: "/", notice: (m) => notices.push(m) },
    );
    expect(notices[0]).toMatch(/backend vllm runs on an OpenAI-compatible server in Argus/);
    await server.call("tool", "generate", { prompt_ls: ["q"] }, { cwd: "/" });
    expect(llm.requests[0]!.body).toMatchObject({ model: "openbmb/MiniCPM4-8B", temperature: 0.7 });
  });

  it("refuses a bad backend or sampling parameter with what to write instead", async () => {
    const init = (args: Record<string, unknown>) =>
      generation().call("tool", "generation_init", { ...GEN(), ...args }, { cwd: "/" });
    await expect(init({ backend: "gpt" })).rejects.toThrow('backend must be "openai", "vllm" or "hf"');
    await expect(init({ sampling_params: { temperature: "hot" } })).rejects.toThrow(
      "sampling_params.temperature must be a number from 0 to 2",
    );
    await expect(init({ backend_configs: { openai: { model_name: "m", base_url: "ftp://x" } } })).rejects.toThrow(
      "base_url must be an http(s) URL",
    );
  });
});

describe("generation.multiturn_generate and multimodal_generate", () => {
  it("continues a chat history (system turns join the system prompt)", async () => {
    llm.setScript([{ match: "and now?", text: "answer" }]);
    const server = await connected();
    const out = await server.call(
      "tool",
      "multiturn_generate",
      {
        messages: [
          { role: "system", content: "ctx" },
          { role: "user", content: "hello" },
          { role: "assistant", content: "hi" },
          { role: "user", content: "and now?" },
        ],
        system_prompt: "",
      },
      { cwd: "/" },
    );
    expect(out).toEqual({ ans_ls: ["answer"] });
    expect(llm.requests[0]!.body.messages).toEqual([
      { role: "system", content: "ctx" },
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "and now?" },
    ]);
  });

  it("sends images from the run's directory interleaved at the image tag, and refuses files elsewhere", async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(path.join(dir, "a.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      llm.setScript([{ text: "a picture" }]);
      const server = await connected();
      const out = await server.call(
        "tool",
        "multimodal_generate",
        { multimodal_path: [["a.png"]], prompt_ls: ["Look: <image> what?"], system_prompt: "", image_tag: "<image>" },
        { cwd: dir },
      );
      expect(out).toEqual({ ans_ls: ["a picture"] });
      const content = (llm.requests[0]!.body.messages as { content: unknown }[])[0]!.content;
      expect(content).toEqual([
        { type: "text", text: "Look: " },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } },
        { type: "text", text: " what?" },
      ]);
      await expect(
        server.call(
          "tool",
          "multimodal_generate",
          { multimodal_path: [["/etc/hostname"]], prompt_ls: ["x"], system_prompt: "", image_tag: null },
          { cwd: dir },
        ),
      ).rejects.toThrow("is outside the run's folder");
    } finally {
      cleanup();
    }
  });
});
