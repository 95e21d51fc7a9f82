/**
 * The gallery (`pipelines/`): every pipeline has front matter and runs to its memory file — offline
 * ones as shipped, `needs: llm` ones against the scripted model (every generation alias pointed at
 * it), `needs: web` ones fail at once naming the key to set. Runs in a copy, so the repository's
 * folder stays clean.
 */
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runPipelineCli } from "../cli/pipeline.ts";
import { startScriptedServer, type ScriptedServer } from "../llm/scripted/server.ts";
import { repoRoot } from "./dsl/test-support.ts";
import { runPipeline } from "./engine/run.ts";
import { tempDir } from "./engine/test-support.ts";
import { readFrontMatter } from "./front-matter.ts";

const gallery = path.join(repoRoot, "pipelines");
const files = readdirSync(gallery)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

let dir: string;
let cleanup: () => void;
let llm: ScriptedServer;
beforeAll(async () => {
  ({ dir, cleanup } = tempDir());
  cpSync(gallery, dir, {
    recursive: true,
    filter: (src) => !/[\\/](index|output|corpora|ui)([\\/]|$)/.test(path.relative(gallery, src)),
  });
  // One reply that ends every loop: a boxed answer, IRCoT's phrase, Search-R1's end token, a full page.
  llm = await startScriptedServer({
    script: {
      rules: [
        {
          text: "The passages say so. So the answer is: Mount Everest. <answer> Mount Everest </answer><|im_end|> \\boxed{Mount Everest}",
        },
      ],
    },
  });
});
afterAll(async () => {
  await llm.close();
  cleanup();
});

const servers = (f: string) =>
  (parse(readFileSync(path.join(dir, f), "utf8")) as { servers: Record<string, string> }).servers;

function scripted(f: string) {
  const overrides: Record<string, Record<string, unknown>> = {};
  for (const [alias, p] of Object.entries(servers(f)))
    if (p === "servers/generation")
      overrides[alias] = {
        backend: "openai",
        backend_configs: {
          openai: {
            model_name: "scripted",
            base_url: llm.openaiBaseURL,
            api_key: "sk-test",
            concurrency: 2,
            retries: 1,
            base_delay: 0.01,
          },
        },
      };
  return overrides;
}

describe("the pipeline gallery", () => {
  it("has at least 15 pipelines, each with front matter and a parameter file", () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const f of files) {
      const meta = readFrontMatter(readFileSync(path.join(gallery, f), "utf8"));
      expect([f, meta?.title]).toEqual([f, expect.any(String)]);
      expect(existsSync(path.join(gallery, "parameter", f.replace(/\.yaml$/, "_parameter.yaml")))).toBe(true);
    }
  });

  it.each(files)("%s runs and writes its memory file", async (f) => {
    const meta = readFrontMatter(readFileSync(path.join(dir, f), "utf8"))!;
    const requestsBefore = llm.requests.length;
    if (meta.needs === "web") {
      await expect(runPipeline(f, { cwd: dir })).rejects.toThrow(/websearch_backend_configs\.tavily\.api_key/);
      return;
    }
    if (meta.needs === "knowledge") {
      // Runs only in a workspace (pipeline-app.test.ts runs it there); alone it says so.
      await expect(runPipeline(f, { cwd: dir, overrides: scripted(f) })).rejects.toThrow(
        /names an Argus knowledge base, but this run is not in a workspace/,
      );
      return;
    }
    const result = await runPipeline(f, { cwd: dir, ...(meta.needs === "llm" ? { overrides: scripted(f) } : {}) });
    expect(result.memoryFile).toMatch(/output[\\/]memory_.*\.json$/);
    const memory = JSON.parse(readFileSync(result.memoryFile!, "utf8")) as { step: string }[];
    expect(memory.length).toBeGreaterThan(0);
    if (meta.needs === "llm") expect(llm.requests.length).toBeGreaterThan(requestsBefore);
    else expect(llm.requests.length).toBe(requestsBefore);
  });

  it("bm25_search finds each sample question's passage first", async () => {
    const result = await runPipeline("bm25_search.yaml", { cwd: dir });
    const top = (result.variables.ret_psg as string[][]).map((l) => l[0]!.split(" ").slice(0, 2).join(" "));
    expect(top).toEqual(["Penicillin Alexander", "Mount Everest", "Amazon River", "Eiffel Tower", "Printing press"]);
  });

  it("memory_qa saves the first turn to the user's project memory after the run", () => {
    const project = path.join(dir, "ui/storage/memory/default/project");
    const [day] = readdirSync(project);
    expect(readFileSync(path.join(project, day!), "utf8")).toContain("- user: Who discovered penicillin?");
  });

  it("memory_qa's next run finds that turn in the project memory", async () => {
    const result = await runPipeline("memory_qa.yaml", { cwd: dir, overrides: scripted("memory_qa.yaml") });
    const found = (result.variables.project_memory_content as string[][])[0]!;
    expect(found[0]).toMatch(/^- user: Who discovered penicillin\?\n- assistant: The passages say so\./);
  });

  it("argus pipeline list shows each pipeline's title and needs", async () => {
    let out = "";
    expect(await runPipelineCli(["list"], { cwd: dir, out: (s) => (out += s), err: () => {} })).toBe(0);
    expect(out).toContain("vanilla_rag.yaml\tbuilt\tVanilla RAG (BM25)\tneeds: llm");
    expect(out).toContain("bm25_search.yaml\tbuilt\tBM25 search\tneeds: none");
    expect(out.trim().split("\n")).toHaveLength(files.length);
  });
});
