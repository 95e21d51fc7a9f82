import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../pipelines/engine/test-support.ts";
import { expandCases, runShowCli } from "./show.ts";

const snapshots = [
  { step: "benchmark.get_data", memory: { memory_q_ls: ["q0", "q1"], memory_gt_ls: [["a"], ["b"]] } },
  { step: "retriever.retriever_init", memory: {} },
  { step: "custom.search_r1_query_extract", memory: { memory_extract_query_list: ["first moon landing?", "<UNSET>"] } },
  { step: "sayhello.greet", memory: { memory_msg: "Hello!" } },
];

describe("argus show case", () => {
  it("expands a batch into one case per item, step by step", () => {
    const cases = expandCases(snapshots);
    expect(cases).toHaveLength(2);
    expect(cases[1]).toEqual({
      index: 2,
      steps: [
        { step: "benchmark.get_data", values: { memory_q_ls: "q1", memory_gt_ls: ["b"] } },
        { step: "retriever.retriever_init", values: {} },
        { step: "custom.search_r1_query_extract", values: { memory_extract_query_list: "<UNSET>" } },
        { step: "sayhello.greet", values: { memory_msg: "Hello!" } },
      ],
    });
  });

  it("prints cases, one case with --case, JSON with --json, and clear errors", async () => {
    const t = tempDir();
    try {
      writeFileSync(path.join(t.dir, "m.json"), JSON.stringify(snapshots));
      writeFileSync(path.join(t.dir, "bad.json"), "{]");
      let out = "";
      let err = "";
      const io = { cwd: t.dir, out: (s: string) => (out += s), err: (s: string) => (err += s) };
      expect(await runShowCli(["case", "m.json", "--case", "2"], io)).toBe(0);
      expect(out).toContain("── case 2 ──\n1. benchmark.get_data\n     memory_q_ls: q1\n");
      expect(out).not.toContain("case 1");
      out = "";
      expect(await runShowCli(["case", "m.json", "--json"], io)).toBe(0);
      expect(JSON.parse(out)).toHaveLength(2);
      expect(await runShowCli(["case", "bad.json"], io)).toBe(1);
      expect(err).toContain("neither JSON nor JSON lines");
      expect(await runShowCli(["case", "m.json", "--case", "9"], io)).toBe(2);
      expect(await runShowCli(["case"], io)).toBe(2);
      expect(await runShowCli(["case", "missing.json"], io)).toBe(1);
    } finally {
      t.cleanup();
    }
  });
});
