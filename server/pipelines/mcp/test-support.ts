/**
 * A small PipelineServer for the MCP tests and the overhead benchmark, written straight against the
 * contract so it depends on nothing but it: tools with pool and `$parameter` inputs, several outputs,
 * a failing tool, a slow (abortable) one, a streaming one, a prompt, and — only when the process opts
 * in, i.e. inside a throwaway child — one that kills its own process mid-call.
 */
import type { ServerSignature } from "../dsl/schema.ts";
import type { CallContext, PipelineServer } from "../servers/contract.ts";

export const TEST_PARAMETERS = {
  name: "Argus",
  sep: ", ",
  template: "Q: {question}",
  ms: 30_000,
  sentence: "alpha beta gamma",
};

const SIGNATURE: ServerSignature = {
  tools: {
    greet: { input: { name: "$name" }, output: ["msg"] },
    split: { input: { sentence: "$sentence" }, output: ["q_ls"] },
    join: { input: { q_ls: "q_ls", sep: "$sep" }, output: ["joined", "count"] },
    noop: { input: { x: "x" }, output: ["x"] },
    fail: { input: {}, output: [] },
    slow: { input: { ms: "$ms" }, output: ["waited"] },
    stream: { input: { text: "text" }, output: ["text"] },
    pid: { input: {}, output: ["pid"] },
    env: { input: {}, output: ["env"] },
    crash: { input: {}, output: [] },
  },
  prompts: {
    qa: { input: { q_ls: "q_ls", template: "$template" }, output: ["prompt_ls"] },
  },
  parameters: TEST_PARAMETERS,
};

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(new Error("slow was cancelled"));
    });
  });
}

export function createTestServer(options: { allowCrash?: boolean } = {}): PipelineServer {
  const tools: Record<
    string,
    (args: Record<string, unknown>, ctx: CallContext) => Promise<Record<string, unknown>> | Record<string, unknown>
  > = {
    greet: ({ name }) => ({ msg: `Hello, ${String(name)}!` }),
    split: ({ sentence }) => ({ q_ls: String(sentence).split(" ") }),
    join: ({ q_ls, sep }) => {
      if (!Array.isArray(q_ls)) throw new Error("join: q_ls must be a list");
      return { joined: q_ls.join(String(sep)), count: q_ls.length };
    },
    noop: ({ x }) => ({ x }),
    fail: () => {
      throw new Error("deliberate failure for the test");
    },
    slow: async ({ ms }, ctx) => {
      await sleep(Number(ms), ctx.signal);
      return { waited: ms };
    },
    stream: ({ text }, ctx) => {
      for (const word of String(text).split(" ")) ctx.onToken?.(word);
      return { text };
    },
    pid: () => ({ pid: process.pid }),
    env: () => ({ env: { ...process.env } }),
    crash: () => {
      if (!options.allowCrash) throw new Error("crash is only allowed in a child process");
      process.stderr.write("test server: crashing on purpose\n");
      // Let stderr flush before the exit.
      setTimeout(() => process.exit(3), 20);
      return new Promise(() => undefined);
    },
  };

  return {
    name: "testkit",
    signature: async () => structuredClone(SIGNATURE),
    async call(kind, name, args, ctx) {
      if (kind === "prompt") {
        if (name !== "qa") throw new Error(`testkit has no prompt ${name}`);
        const qs = args.q_ls as unknown[];
        return { prompt_ls: qs.map((q) => String(args.template).replace("{question}", String(q))) };
      }
      const tool = tools[name];
      if (!tool) throw new Error(`testkit has no tool ${name}`);
      return tool(args, ctx);
    },
    async close() {},
  };
}
