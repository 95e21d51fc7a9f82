/**
 * servers/prompt against spec §5.4: UltraRAG's own templates render as Jinja2 renders them (escaped
 * inputs, no trailing newline), list inputs zip and truncate, and template paths stay inside the run's
 * directory.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readUltrarag } from "../dsl/test-support.ts";
import { tempDir } from "../engine/test-support.ts";
import { UNSET } from "../engine/values.ts";
import { promptServer } from "./prompt.ts";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir({
    "prompt/qa_boxed.jinja": readUltrarag("prompt/qa_boxed.jinja"),
    "prompt/qa_rag_boxed.jinja": readUltrarag("prompt/qa_rag_boxed.jinja"),
    "prompt/search_r1_append.jinja": readUltrarag("prompt/search_r1_append.jinja"),
    "prompt/ircot.jinja": "D: {{documents}}\nQ: {{question}}\nA: {{cur_answer}}\n",
    "prompt/fill.jinja": "{{ sub_question }} {{ docs_text }} {% for d in docs_text %}[{{ d }}]{% endfor %}",
    "prompt/choices.jinja": "{{question}}\n{{choices}}",
    "prompt/o1.jinja": "Q: {{question}}",
  }));
});
afterEach(() => cleanup());

const call = (name: string, args: Record<string, unknown>) =>
  promptServer().call("prompt", name, args, { cwd: dir }) as Promise<{ prompt_ls: string[] }>;

describe("prompt rendering", () => {
  it("qa_boxed renders UltraRAG's template with the question escaped and no trailing newline", async () => {
    const { prompt_ls } = await call("qa_boxed", {
      q_ls: ["who wrote he ain't heavy he's my brother lyrics", "a < b & c?"],
      template: "prompt/qa_boxed.jinja",
    });
    expect(prompt_ls).toEqual([
      "Please answer the following question.\nThink step by step.\nProvide your final answer in the format \\boxed{YOUR_ANSWER}.\n\nQuestion: who wrote he ain&#39;t heavy he&#39;s my brother lyrics",
      expect.stringMatching(/Question: a &lt; b &amp; c\?$/),
    ]);
  });

  it("qa_rag_boxed joins each item's passages with newlines and zips to the shorter list", async () => {
    const { prompt_ls } = await call("qa_rag_boxed", {
      q_ls: ["q1", "q2", "q3"],
      ret_psg: [["p1", "p2"], ["p3"]],
      template: "prompt/qa_rag_boxed.jinja",
    });
    expect(prompt_ls).toHaveLength(2);
    expect(prompt_ls[0]).toContain("Documents:\np1\np2\n\nQuestion: q1");
    expect(prompt_ls[1]).toContain("Documents:\np3\n\nQuestion: q2");
  });

  it("search_r1_gen appends the answer and the first 3 passages to the (re-escaped) history", async () => {
    const { prompt_ls } = await call("search_r1_gen", {
      prompt_ls: ["Question: it&#39;s"],
      ans_ls: ["<search> x </search>"],
      ret_psg: [["a", "b", "c", "d"]],
      template: "prompt/search_r1_append.jinja",
    });
    expect(prompt_ls).toEqual([
      "Question: it&amp;#39;s\n&lt;search&gt; x &lt;/search&gt;</search>\n<information>a\nb\nc</information>",
    ]);
  });

  it("ircot_next_prompt: one round uses the first passages; later rounds add passages and earlier answers", async () => {
    const one = await call("ircot_next_prompt", {
      memory_q_ls: [["q0", null]],
      memory_ret_psg: [[["a"], ["b"]]],
      template: "prompt/ircot.jinja",
    });
    expect(one.prompt_ls).toEqual(["D: a\nQ: q0\nA: "]);
    const two = await call("ircot_next_prompt", {
      memory_q_ls: [
        ["q0", "q1"],
        ["first thought.", UNSET],
      ],
      memory_ret_psg: [
        [["a"], ["b"]],
        [["c"], UNSET],
      ],
      template: "prompt/ircot.jinja",
    });
    expect(two.prompt_ls).toEqual(["D: a\nc\nQ: q0\nA: first thought.", "D: b\nQ: q1\nA: "]);
  });

  it("webnote_fill_page passes the passages as a list (printed as Python prints it, iterable)", async () => {
    const { prompt_ls } = await call("webnote_fill_page", {
      q_ls: ["q"],
      plan_ls: ["plan"],
      page_ls: ["page"],
      subq_ls: ["sub"],
      psg_ls: [["x<y", "z"]],
      template: "prompt/fill.jinja",
    });
    expect(prompt_ls).toEqual(["sub [Markup(&#39;x&amp;lt;y&#39;), Markup(&#39;z&#39;)] [x&lt;y][z]"]);
  });

  it("multiple choice lettering and Search-o1's appended search history", async () => {
    const mc = await call("qa_boxed_multiple_choice", {
      q_ls: ["pick"],
      choices_ls: [["red", "blue"]],
      template: "prompt/choices.jinja",
    });
    expect(mc.prompt_ls).toEqual(["pick\nA: red\nB: blue"]);
    const o1 = await call("search_o1_insert", {
      q_ls: ["q"],
      total_subq_list: [["who", "when"]],
      total_final_info_list: [["him"]],
      template: "prompt/o1.jinja",
    });
    // One pair per round, zipped (a round without its result is left out), appended unescaped.
    expect(o1.prompt_ls).toEqual([
      "Q: q<|begin_search_query|>who<|end_search_query|>\n<|begin_search_result|>him<|end_search_result|>",
    ]);
  });
});

describe("prompt bad input", () => {
  it("a missing template names the path and where it was looked for", async () => {
    await expect(call("qa_boxed", { q_ls: ["q"], template: "prompt/nope.jinja" })).rejects.toThrow(
      'prompt.qa_boxed: template "prompt/nope.jinja" does not exist (paths resolve against the run\'s folder)',
    );
  });

  it("template paths cannot leave the run's directory: '..', absolute paths elsewhere, symlinks out", async () => {
    await expect(call("qa_boxed", { q_ls: ["q"], template: "../etc/passwd" })).rejects.toThrow("must not contain '..'");
    await expect(call("qa_boxed", { q_ls: ["q"], template: "/etc/passwd" })).rejects.toThrow(
      "is outside the run's folder",
    );
    mkdirSync(path.join(dir, "..", `${path.basename(dir)}-outside`), { recursive: true });
    const outside = path.join(dir, "..", `${path.basename(dir)}-outside`, "secret.jinja");
    writeFileSync(outside, "secret {{question}}");
    symlinkSync(outside, path.join(dir, "prompt", "link.jinja"));
    await expect(call("qa_boxed", { q_ls: ["q"], template: "prompt/link.jinja" })).rejects.toThrow(
      "is outside the run's folder",
    );
    await expect(call("qa_boxed", { q_ls: ["q"], template: 42 })).rejects.toThrow("must be a path");
  });

  it("wrong input types and broken templates fail with the prompt's name", async () => {
    await expect(call("qa_boxed", { q_ls: 5, template: "prompt/qa_boxed.jinja" })).rejects.toThrow(
      "prompt.qa_boxed: input `q_ls` must be a list",
    );
    writeFileSync(path.join(dir, "prompt", "broken.jinja"), "{% if %}");
    await expect(call("qa_boxed", { q_ls: ["q"], template: "prompt/broken.jinja" })).rejects.toThrow(
      "prompt.qa_boxed: template prompt/broken.jinja is not valid Jinja",
    );
    await expect(
      call("qa_rag_boxed", { q_ls: ["q"], ret_psg: [[{ x: 1 }]], template: "prompt/qa_rag_boxed.jinja" }),
    ).rejects.toThrow("prompt.qa_rag_boxed: passage 0 of item 0 in `ret_psg` must be text");
  });
});
