/** servers/corpus and servers/memory: documents → corpus rows, corpus → chunks, per-user memory files. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import { corpus, reflow } from "./corpus.ts";
import { fileMemoryStore, memory } from "./memory.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir({
    "docs/b-notes.md": "# Notes\n\nThe stadium was\nbuilt in 1972.\n\n\n\nIt holds many fans.\n",
    "docs/a.txt": "A plain text file.\r\nSecond line of it.",
    "docs/skip.bin": "x",
  }));
});
afterEach(() => cleanup());
const rows = (rel: string) =>
  readFileSync(path.join(dir, rel), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("corpus", () => {
  it("reflows wrapped lines, undoes hyphenation, keeps upstream's sentence ends and paragraphs", () => {
    // Upstream's sentence ends are 。！？!?；;… — a line ending in "." is joined with the next.
    expect(reflow("The stadium was\nbuilt in 1972.\nWhy?\nNext.\r\n\r\n\r\n\r\nPara two is hyph-\nenated")).toBe(
      "The stadium was built in 1972. Why?\nNext.\n\nPara two is hyphenated",
    );
  });

  it("build_text_corpus reads a directory in name order, skipping unsupported files with a notice", async () => {
    const notices: string[] = [];
    await corpus().call(
      "tool",
      "build_text_corpus",
      { parse_file_path: "docs", text_corpus_save_path: "corpora/text.jsonl" },
      { cwd: dir, notice: (m) => notices.push(m) },
    );
    const out = rows("corpora/text.jsonl");
    expect(out.map((r) => r.id)).toEqual(["a", "b-notes"]);
    expect(out[0]).toEqual({ id: "a", title: "a", contents: "A plain text file. Second line of it." });
    expect(out[1]!.contents).toContain("The stadium was built in 1972.");
    expect(notices).toEqual(["skipped skip.bin: not a supported type"]);
    await expect(
      corpus().call(
        "tool",
        "build_text_corpus",
        { parse_file_path: "../", text_corpus_save_path: "x.jsonl" },
        { cwd: dir },
      ),
    ).rejects.toThrow("is outside the run's folder");
    await expect(
      corpus().call(
        "tool",
        "build_image_corpus",
        { parse_file_path: "docs", image_corpus_save_path: "i.jsonl" },
        { cwd: dir },
      ),
    ).rejects.toThrow("needs a PDF renderer");
  });

  it("chunk_documents writes running ids, doc ids and titled contents; nothing is written on failure", async () => {
    await corpus().call(
      "tool",
      "build_text_corpus",
      { parse_file_path: "docs", text_corpus_save_path: "c.jsonl" },
      { cwd: dir },
    );
    await corpus().call(
      "tool",
      "chunk_documents",
      {
        raw_chunk_path: "c.jsonl",
        chunk_backend_configs: { token: { chunk_overlap: 0 } },
        chunk_backend: "token",
        tokenizer_or_token_counter: "word",
        chunk_size: 4,
        chunk_path: "chunks.jsonl",
        use_title: true,
      },
      { cwd: dir },
    );
    const out = rows("chunks.jsonl");
    expect(out.map((r) => r.id)).toEqual(out.map((_, i) => i));
    expect(out[0]).toMatchObject({ doc_id: "a", title: "a" });
    expect(out[0]!.contents).toMatch(/^Title:\na\n\nContent:\nA plain text/);
    await expect(
      corpus().call(
        "tool",
        "chunk_documents",
        {
          raw_chunk_path: "c.jsonl",
          chunk_backend: "token",
          tokenizer_or_token_counter: "gpt2",
          chunk_size: 4,
          chunk_path: "bad.jsonl",
        },
        { cwd: dir },
      ),
    ).rejects.toThrow("bad chunking parameters");
    expect(existsSync(path.join(dir, "bad.jsonl"))).toBe(false);
  });
});

describe("memory", () => {
  it("keeps a global memory and a dated project memory per user; refuses ids that could leave the folder", async () => {
    const m = memory();
    const got = await m.call("tool", "get_global_memory", { user_id: "ada" }, { cwd: dir });
    expect(got).toEqual({ global_memory_content: "# MEMORY\n", current_user_id: "ada" });
    await m.call("tool", "save_memory", { user_id: "ada", q_ls: ["who?"], ans_ls: ["me"] }, { cwd: dir });
    const project = path.join(dir, "ui/storage/memory/ada/project");
    const [file] = readdirSync(project);
    expect(file).toMatch(/^\d{4}-\d{2}-\d{2}\.md$/);
    expect(readFileSync(path.join(project, file!), "utf8")).toMatch(
      /^# Project Memory .*\n\n## .*\n- user: who\?\n- assistant: me\n$/,
    );
    await expect(m.call("tool", "get_global_memory", { user_id: "../x" }, { cwd: dir })).rejects.toThrow(
      "user_id must be letters, digits",
    );
  });

  it("reads the saved turns back, newest first, answers of several lines included", async () => {
    const store = fileMemoryStore(path.join(dir, "store"));
    await store.saveTurn("bo", { question: "q1", answer: "line one\nline two", at: new Date(2026, 0, 2, 9, 0, 0) });
    await store.saveTurn("bo", { question: "q2", answer: "a2", at: new Date(2026, 0, 2, 10, 0, 0) });
    await store.saveTurn("bo", { question: "q0", answer: "a0", at: new Date(2026, 0, 1, 8, 0, 0) });
    expect((await store.turns("bo", 10)).map((t) => [t.question, t.answer, t.at.getHours()])).toEqual([
      ["q2", "a2", 10],
      ["q1", "line one\nline two", 9],
      ["q0", "a0", 8],
    ]);
    expect(await store.turns("bo", 1)).toHaveLength(1);
    expect(await store.turns("nobody", 5)).toEqual([]);
  });
});
