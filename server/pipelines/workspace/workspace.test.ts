/** The pieces of the web app's pipelines that need no server: tool docs, secrets, file parameters. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SECRET_MASK } from "../../shared/pipelines.ts";
import { builtinSignatures } from "./catalog.ts";
import { assertPathsInside, paramFields, splitSecrets, withSecrets } from "./parameters.ts";
import { TOOL_DOCS } from "./tool-docs.ts";
import { finishRunDir, prepareRunDir, sweepRunDirs } from "./run-dir.ts";

describe("tool docs", () => {
  it("describe every built-in tool and prompt, and nothing else", async () => {
    const names: string[] = [];
    for (const [server, sig] of await builtinSignatures())
      for (const tool of [...Object.keys(sig.tools), ...Object.keys(sig.prompts)]) names.push(`${server}.${tool}`);
    expect(Object.keys(TOOL_DOCS).sort()).toEqual(names.sort());
  });
});

describe("secret parameters", () => {
  const form = { gen: { backend_configs: { openai: { api_key: "sk-1", model_name: "m" } }, top_k: 3 } };

  it("are sealed apart, blanked in what is stored, and put back for a run", () => {
    const { parameters, secrets } = splitSecrets(form, {});
    expect(parameters).toEqual({ gen: { backend_configs: { openai: { api_key: "", model_name: "m" } }, top_k: 3 } });
    expect(Object.values(secrets)).toEqual(["sk-1"]);
    expect(withSecrets(parameters, secrets)).toEqual(form);
    // The mask keeps the stored key; an empty value clears it.
    const masked = { gen: { backend_configs: { openai: { api_key: SECRET_MASK, model_name: "m" } }, top_k: 3 } };
    expect(splitSecrets(masked, secrets).secrets).toEqual(secrets);
    const cleared = { gen: { backend_configs: { openai: { api_key: "", model_name: "m" } }, top_k: 3 } };
    expect(splitSecrets(cleared, secrets).secrets).toEqual({});
  });

  it("show in the form as set or not, never their value", () => {
    const { parameters, secrets } = splitSecrets(form, {});
    const fields = paramFields(parameters as never, secrets);
    expect(fields.find((f) => f.path.at(-1) === "api_key")).toEqual({
      alias: "gen",
      path: ["backend_configs", "openai", "api_key"],
      type: "string",
      value: SECRET_MASK,
      secret: true,
      set: true,
    });
    expect(fields.find((f) => f.path.at(-1) === "top_k")).toMatchObject({ type: "integer", value: 3, secret: false });
  });
});

describe("file parameters", () => {
  it("must stay inside the run's folder", () => {
    expect(() => assertPathsInside({ b: { benchmark: { path: "data/q.jsonl" } } })).not.toThrow();
    for (const bad of ["/etc/passwd", "../x", "data/../../x", "~/x", "C:\\x", "file:///etc/passwd"])
      expect(() => assertPathsInside({ b: { benchmark: { path: bad } } }), bad).toThrow(
        /b\.benchmark\.path must be a path inside/,
      );
    expect(() => assertPathsInside({ r: { backend_configs: { bm25: { save_path: "/tmp/x" } } } })).toThrow(
      /r\.backend_configs\.bm25\.save_path/,
    );
  });
});

describe("run folders (run-dir.ts)", () => {
  it("a finished run keeps only its memory file; the start-up sweep removes folders of runs not running", () => {
    const root = mkdtempSync(path.join(tmpdir(), "argus-runs-"));
    try {
      const a = prepareRunDir(root, "run-a", { name: "p", source: "pipeline: []\n", parameters: {} });
      mkdirSync(path.join(a.dir, "output"));
      writeFileSync(path.join(a.dir, "output", "memory_p.json"), "[]");
      const kept = finishRunDir(root, "run-a", path.join(a.dir, "output", "memory_p.json"))!;
      expect(existsSync(a.dir)).toBe(false);
      expect(readFileSync(kept, "utf8")).toBe("[]");
      expect(finishRunDir(root, "run-none", null)).toBeNull();

      for (const uid of ["old-1", "old-2", "live"]) prepareRunDir(root, uid, { name: "p", source: "", parameters: {} });
      expect(sweepRunDirs(root, new Set(["live"]))).toBe(2);
      expect(readdirSync(root).sort()).toEqual(["live", "memory"]);
      expect(existsSync(kept)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
