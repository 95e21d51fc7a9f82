import { describe, expect, it } from "vitest";
import { initialize, pipelineCall, runPipeline } from "./api.ts";
import { ultraragCopy } from "./engine/test-support.ts";

describe("TypeScript API", () => {
  it("toolCall.<server>.<tool> fills $ inputs from parameter.yaml and requires the others", async () => {
    const { dir, cleanup } = ultraragCopy();
    const toolCall = await initialize(["benchmark", "custom", "sayhello"], { serverRoot: dir });
    try {
      const { q_ls, gt_ls } = (await toolCall.benchmark!.get_data!()) as { q_ls: string[]; gt_ls: string[][] };
      expect(q_ls).toHaveLength(10);
      expect(q_ls[0]).toBe("when was the last time anyone was on the moon");
      expect(gt_ls[0]).toEqual(["14 December 1972 UTC", "December 1972"]);
      expect(await toolCall.sayhello!.greet!()).toEqual({ msg: "Hello, UltraRAG v3!" });
      expect(await toolCall.custom!.output_extract_from_boxed!({ ans_ls: ["\\boxed{2018}"] })).toEqual({
        pred_ls: ["2018"],
      });
      await expect(toolCall.custom!.output_extract_from_boxed!()).rejects.toThrow(
        "toolCall.custom.output_extract_from_boxed: missing input `ans_ls`",
      );
    } finally {
      await toolCall.close();
      cleanup();
    }
  });

  it("runPipeline and pipelineCall run a file with a parameter file", async () => {
    const { dir, cleanup } = ultraragCopy();
    try {
      const r = await runPipeline("examples/experiments/sayhello.yaml", {
        cwd: dir,
        param: "parameter/sayhello_parameter.yaml",
      });
      expect(r.result).toEqual({ msg: "Hello, UltraRAG v3!" });
      const call = await pipelineCall("examples/experiments/sayhello.yaml", { cwd: dir });
      expect(call).toEqual({
        final_result: { msg: "Hello, UltraRAG v3!" },
        all_results: [{ step: "sayhello.greet", memory: { memory_msg: "Hello, UltraRAG v3!" } }],
      });
    } finally {
      cleanup();
    }
  });

  it("names the memory file after the benchmark alias's dataset name", async () => {
    const { dir, cleanup } = ultraragCopy();
    try {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(
        `${dir}/load.yaml`,
        "servers:\n  benchmark: servers/benchmark\n  custom: servers/custom\npipeline:\n- benchmark.get_data\n- custom.iterretgen_nextquery:\n    input: {ans_ls: q_ls}\n",
      );
      const r = await runPipeline("load.yaml", { cwd: dir });
      expect(r.memoryFile).toMatch(/output\/memory_nq_load_\d{8}_\d{6}\.json$/);
      expect((r.variables.nextq_ls as string[])[1]).toBe(
        "who wrote he ain't heavy he's my brother lyrics who wrote he ain't heavy he's my brother lyrics",
      );
    } finally {
      cleanup();
    }
  });
});
