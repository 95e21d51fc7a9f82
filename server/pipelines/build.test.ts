import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildPipeline } from "./build.ts";
import { TEST_BUILTINS, tempDir } from "./engine/test-support.ts";
import type { PipelineServer } from "./servers/contract.ts";

let cleanup = () => {};
afterEach(() => cleanup());

function project(files: Record<string, string>) {
  const t = tempDir(files);
  cleanup = t.cleanup;
  return t.dir;
}
const read = (dir: string, rel: string) =>
  parse(readFileSync(path.join(dir, rel), "utf8")) as Record<string, Record<string, unknown>>;

describe("buildPipeline", () => {
  it("keeps values the user edited, adds new parameters, drops unused ones, and reports it", async () => {
    const dir = project({
      "p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.echo\n- toy.tag\n",
      "parameter/p_parameter.yaml": "toy:\n  n: 7\n  stale: 1\nold_alias:\n  x: 1\n",
    });
    const r = await buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS });
    expect(read(dir, "parameter/p_parameter.yaml")).toEqual({ toy: { n: 7, prefix: ">" } });
    expect(r.merge).toEqual({
      existed: true,
      kept: ["toy.n"],
      added: ["toy.prefix"],
      dropped: ["toy.stale", "old_alias"],
    });
    // Building again changes nothing.
    const again = await buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS });
    expect(again.merge).toEqual({ existed: true, kept: ["toy.n", "toy.prefix"], added: [], dropped: [] });
  });

  it("takes defaults from servers/<name>/parameter.yaml and applies auto-$ to its keys", async () => {
    const dir = project({
      "p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n- toy.echo\n",
      // `q_ls` is now a parameter key, so echo's input reads `$q_ls` (UltraRAG's auto-$ rule).
      "servers/toy/parameter.yaml": "n: 2\nprefix: '*'\nq_ls: [a]\n",
    });
    await buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS });
    const servers = read(dir, "server/p_server.yaml");
    expect(servers.toy).toEqual({
      // Outputs follow the same rule: seed's `q_ls` output now writes back into the parameters.
      tools: {
        seed: { input: { n: "$n" }, output: ["$q_ls", "gt_ls"] },
        echo: { input: { q_ls: "$q_ls" }, output: ["ans_ls"] },
      },
      parameter: "servers/toy/parameter.yaml",
      path: "argus:servers/toy",
    });
    expect(read(dir, "parameter/p_parameter.yaml")).toEqual({ toy: { n: 2, q_ls: ["a"] } });
  });

  it("gives aliases of one server their own sections, and names external servers by their address", async () => {
    const external = async (): Promise<PipelineServer> => ({
      name: "ext",
      signature: async () => ({
        tools: { hello: { input: { who: "$who" }, output: ["msg"] } },
        prompts: {},
        parameters: { who: "world" },
      }),
      call: async () => ({ msg: "hi" }),
      close: async () => {},
    });
    const dir = project({
      "p.yaml":
        "servers:\n  a: servers/toy\n  b: servers/toy\n  ext: http://127.0.0.1:9/mcp\npipeline:\n- a.seed\n- b.echo\n- ext.hello\n",
    });
    const r = await buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS, external });
    expect(Object.keys(r.servers)).toEqual(["a", "b", "ext"]);
    expect(r.servers.a!.tools).toHaveProperty("seed");
    expect(r.servers.b!.tools).toHaveProperty("echo");
    expect(r.servers.ext).toEqual({
      tools: { hello: { input: { who: "$who" }, output: ["msg"] } },
      path: "http://127.0.0.1:9/mcp",
    });
    expect(r.parameters).toEqual({ a: { n: 3 }, b: {}, ext: { who: "world" } });
  });

  it("refuses unknown tools but leaves variable flow to `run`, as UltraRAG does", async () => {
    const dir = project({ "p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.tag\n" });
    await expect(buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS })).resolves.toBeDefined();
    writeFileSync(path.join(dir, "p.yaml"), "servers:\n  toy: servers/toy\npipeline:\n- toy.nope\n");
    await expect(buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS })).rejects.toThrow(
      "p.yaml:4:3: Server alias `toy` has no tool `nope`",
    );
  });

  it("refuses to merge into a parameter file it cannot read", async () => {
    const dir = project({
      "p.yaml": "servers:\n  toy: servers/toy\npipeline:\n- toy.seed\n",
      "parameter/p_parameter.yaml": "toy: [unclosed\n",
    });
    await expect(buildPipeline("p.yaml", { cwd: dir, builtins: TEST_BUILTINS })).rejects.toThrow(
      /p_parameter\.yaml is not valid YAML/,
    );
    expect(readFileSync(path.join(dir, "parameter/p_parameter.yaml"), "utf8")).toBe("toy: [unclosed\n");
  });
});
