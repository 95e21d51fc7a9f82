/**
 * The SurveyCPM tools (spec §5.9) and Search-o1's history tools, each against hand-computed
 * expectations; the prompts' task notes; bad input.
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../engine/test-support.ts";
import { custom } from "./custom.ts";
import { promptServer } from "./prompt.ts";
import { citedKeys, cleanTitle, languageMatches, parseAnswer, surveyMarkdown } from "./surveycpm.ts";
import { cursorOf, detailedTaskNote, pyJsonDumps, taskNote } from "./survey.ts";

const server = () => custom();
const call = (s: ReturnType<typeof custom>, tool: string, args: Record<string, unknown>) =>
  s.call("tool", tool, args, { cwd: "/" });
const act = (a: unknown) => `<thought>t</thought><action>${JSON.stringify(a)}</action>`;

const plan = {
  title: "T",
  sections: [
    { title: "A", plan: "pa", content: "alpha" },
    {
      title: "B",
      plan: "pb",
      subsections: [
        { title: "B1", plan: "pb1", content: "b one" },
        { title: "B2", plan: "pb2" },
      ],
    },
    { title: "C", plan: "pc" },
  ],
};

describe("the survey model", () => {
  it("finds the cursor: outline, then the first section or subsection without content, then none", () => {
    expect(cursorOf({})).toBe("outline");
    expect(cursorOf(plan)).toBe("section-2");
    expect(cursorOf({ ...plan, sections: [plan.sections[0], { ...plan.sections[1], content: "x" }] })).toBe(
      "section-2.2",
    );
    expect(cursorOf({ title: "T", sections: [{ title: "A", plan: "p", content: "" }] })).toBeNull();
  });

  it("writes the survey as Python's json.dumps does", () => {
    expect(pyJsonDumps({ title: "Ü", sections: [{ a: 1, b: [true, null] }] })).toBe(
      '{"title": "Ü", "sections": [{"a": 1, "b": [true, null]}]}',
    );
  });

  it("task notes: one line per section, written [OK], planned [PLAN]; the write note keeps the current part whole", () => {
    const survey = {
      title: "T",
      sections: [
        { title: "A", plan: "p\nq", content: "line1\nline2 " },
        { title: "B", plan: "pb" },
      ],
    };
    expect(taskNote(survey)).toBe("# Title: [OK] T\n# Section-1 [A]: [OK] line1 line2\n# Section-2 [B]: [PLAN] pb\n");
    expect(taskNote({})).toBe("There is no survey.");
    // Last written = section-1 (level 0): every top-level section is shown by toOneLine.
    expect(detailedTaskNote(survey)).toBe(
      "# Title: [OK] T\n# Section-1 [A]: [OK] line1 line2\n# Section-2 [B]: [PLAN] pb\n",
    );
  });
});

describe("custom.surveycpm_* tools", () => {
  it("state_init starts every item searching at the outline", async () => {
    expect(await call(server(), "surveycpm_state_init", { instruction_ls: ["a", "b"] })).toEqual({
      state_ls: ["search", "search"],
      cursor_ls: ["outline", "outline"],
      survey_ls: ["<PAD>", "<PAD>"],
      step_ls: [0, 0],
      extend_time_ls: [0, 0],
      extend_result_ls: ["<PAD>", "<PAD>"],
      retrieved_info_ls: ["<PAD>", "<PAD>"],
      parsed_ls: [true, true],
    });
  });

  it("parse_search_response takes the keywords; hard mode allows at most five", async () => {
    const six = act({ name: "search", keywords: ["1", "2", "3", "4", "5", "6"] });
    const out = await call(server(), "surveycpm_parse_search_response", {
      response_ls: [
        act({ name: "search", keywords: ["x", "y"] }),
        "no tags",
        six,
        act({ name: "search", keywords: [""] }),
      ],
      surveycpm_hard_mode: true,
    });
    expect(out.parsed_ls).toEqual([true, false, false, false]);
    // An invalid action's keywords are still passed on, as upstream.
    expect(out.keywords_ls).toEqual([["x", "y"], [], ["1", "2", "3", "4", "5", "6"], [""]]);
    const soft = await call(server(), "surveycpm_parse_search_response", {
      response_ls: [six],
      surveycpm_hard_mode: false,
    });
    expect(soft.parsed_ls).toEqual([true]);
  });

  it("process_passages_with_citation: a fair share per search, deduplicated, keys stable across rounds", async () => {
    const s = server();
    const first = await call(s, "surveycpm_process_passages_with_citation", {
      ret_psg_ls: [
        [
          ["p1", "p2", "p3"],
          ["p2", "p4"],
        ],
        [],
      ],
      survey_ls: ["<PAD>", "<PAD>"],
    });
    // limit 20 (no outline yet) → 10 per search: p1 p2 p3, then p4 (p2 seen).
    expect(first.ret_psg).toEqual([
      ["bibkey:textid1\np1", "bibkey:textid2\np2", "bibkey:textid3\np3", "bibkey:textid4\np4"],
      [],
    ]);
    expect(first.retrieved_info_ls).toEqual([
      "bibkey:textid1\np1\n\nbibkey:textid2\np2\n\nbibkey:textid3\np3\n\nbibkey:textid4\np4",
      "",
    ]);
    const again = await call(s, "surveycpm_process_passages_with_citation", {
      ret_psg_ls: [[["p4", "p5"]]],
      survey_ls: [pyJsonDumps(plan)],
    });
    expect(again.ret_psg).toEqual([["bibkey:textid4\np4", "bibkey:textid5\np5"]]);
    // With an outline, 10 passages: 5 per search from two searches of 8.
    const many = (p: string) => Array.from({ length: 8 }, (_, i) => `${p}${i}`);
    const ten = await call(server(), "surveycpm_process_passages_with_citation", {
      ret_psg_ls: [[many("a"), many("b")]],
      survey_ls: [pyJsonDumps(plan)],
    });
    expect((ten.ret_psg as string[][])[0]!.map((p) => p.split("\n")[1])).toEqual([
      ...["a0", "a1", "a2", "a3", "a4"],
      ...["b0", "b1", "b2", "b3", "b4"],
    ]);
    // A new registry starts the keys over.
    await call(s, "surveycpm_init_citation_registry", { instruction_ls: ["x"] });
    const reset = await call(s, "surveycpm_process_passages_with_citation", {
      ret_psg_ls: [[["p5"]]],
      survey_ls: ["<PAD>"],
    });
    expect(reset.ret_psg).toEqual([["bibkey:textid1\np5"]]);
  });

  it("after_init_plan stores a valid outline and moves the cursor; a bad one keeps the outline cursor", async () => {
    const good = act({ name: "init-plan", title: "T", sections: [{ title: "A", plan: "p" }] });
    const out = await call(server(), "surveycpm_after_init_plan", {
      response_ls: [good, act({ name: "init-plan", title: "T", sections: [{ title: "A" }] })],
      survey_ls: ["<PAD>", "<PAD>"],
      instruction_ls: ["x", "y"],
      surveycpm_hard_mode: false,
    });
    expect(out).toEqual({
      survey_ls: ['{"title": "T", "sections": [{"title": "A", "plan": "p"}]}', "<PAD>"],
      cursor_ls: ["section-1", "outline"],
      parsed_ls: [true, false],
    });
    // Hard mode: 3–12 sections.
    const hard = await call(server(), "surveycpm_after_init_plan", {
      response_ls: [good],
      survey_ls: ["<PAD>"],
      instruction_ls: ["x"],
      surveycpm_hard_mode: true,
    });
    expect(hard.parsed_ls).toEqual([false]);
  });

  it("after_write puts the text at the cursor; hard mode refuses headings, bibkeys and short texts", async () => {
    const survey = pyJsonDumps(plan);
    const out = await call(server(), "surveycpm_after_write", {
      response_ls: ["<action>B's text</action>"],
      survey_ls: [survey],
      cursor_ls: ["section-2"],
      instruction_ls: ["x"],
      retrieved_info_ls: ["<PAD>"],
      surveycpm_hard_mode: false,
    });
    expect(out.cursor_ls).toEqual(["section-2.2"]);
    expect(JSON.parse((out.survey_ls as string[])[0]!).sections[1].content).toBe("B's text");
    const long = "x".repeat(60);
    for (const [text, ok] of [
      [long, true],
      ["short", false],
      [`# ${long}`, false],
      [`${long} bibkey`, false],
      [`${long} 中文中文中文中文`, false],
    ] as const) {
      const r = await call(server(), "surveycpm_after_write", {
        response_ls: [`<action>${text}</action>`],
        survey_ls: [survey],
        cursor_ls: ["section-2"],
        instruction_ls: ["write in English"],
        retrieved_info_ls: [""],
        surveycpm_hard_mode: true,
      });
      expect([text, r.parsed_ls]).toEqual([text, [ok]]);
      if (!ok) expect(r.survey_ls).toEqual([survey]);
    }
  });

  it("after_extend adds subsections, answers nop, or asks again (already extended, bad position)", async () => {
    const survey = pyJsonDumps(plan);
    const sub = [
      { title: "C1", plan: "p" },
      { title: "C2", plan: "q" },
    ];
    const out = await call(server(), "surveycpm_after_extend", {
      response_ls: [
        act({ name: "extend-plan", position: "section-3", subsections: sub }),
        act({ name: "nop" }),
        act({ name: "extend-plan", position: "section-2", subsections: sub }),
        act({ name: "extend-plan", position: "section-9", subsections: sub }),
      ],
      survey_ls: [survey, survey, survey, survey],
      cursor_ls: [null, null, null, null],
      instruction_ls: ["x", "x", "x", "x"],
      surveycpm_hard_mode: false,
    });
    expect(out.extend_result_ls).toEqual(["extended", "nop", "retry", "retry"]);
    expect(out.parsed_ls).toEqual([true, true, false, false]);
    expect(JSON.parse((out.survey_ls as string[])[0]!).sections[2].subsections).toEqual(sub);
    // Section B (section-2) has no text of its own yet: the cursor goes back to it.
    expect(out.cursor_ls).toEqual(["section-2", null, null, null]);
  });

  it("update_state follows the transition table", async () => {
    const rows: [
      state: string,
      cursor: string | null,
      times: number,
      result: string,
      step: number,
      parsed: boolean,
      next: string,
      nextTimes: number,
    ][] = [
      ["search", "outline", 0, "<PAD>", 0, true, "analyst-init_plan", 0],
      ["search", "section-1", 0, "<PAD>", 3, true, "write", 0],
      ["search", null, 0, "<PAD>", 3, true, "done", 0],
      ["analyst-init_plan", "section-1", 0, "<PAD>", 1, true, "search", 0],
      ["analyst-init_plan", "outline", 0, "<PAD>", 1, true, "analyst-init_plan", 0],
      ["write", "section-2", 0, "<PAD>", 4, true, "search", 0],
      ["write", null, 1, "<PAD>", 4, true, "analyst-extend_plan", 2],
      ["write", null, 2, "<PAD>", 4, true, "done", 2],
      ["analyst-extend_plan", null, 1, "extended", 5, true, "search", 1],
      ["analyst-extend_plan", null, 1, "nop", 5, true, "done", 1],
      ["analyst-extend_plan", null, 1, "retry", 5, true, "analyst-extend_plan", 1],
      ["analyst-extend_plan", null, 2, "retry", 5, true, "done", 2],
      ["write", "section-2", 0, "<PAD>", 4, false, "write", 0],
      ["analyst-extend_plan", null, 1, "retry", 5, false, "analyst-extend_plan", 2],
      ["analyst-extend_plan", null, 2, "retry", 5, false, "done", 3],
      ["search", "outline", 0, "<PAD>", 9, true, "done", 0],
      ["done", null, 0, "<PAD>", 5, true, "done", 0],
    ];
    const out = await call(server(), "surveycpm_update_state", {
      state_ls: rows.map((r) => r[0]),
      cursor_ls: rows.map((r) => r[1]),
      extend_time_ls: rows.map((r) => r[2]),
      extend_result_ls: rows.map((r) => r[3]),
      step_ls: rows.map((r) => r[4]),
      parsed_ls: rows.map((r) => r[5]),
      surveycpm_max_step: 9,
      surveycpm_max_extend_step: 2,
    });
    expect(out.state_ls).toEqual(rows.map((r) => r[6]));
    expect(out.extend_time_ls).toEqual(rows.map((r) => r[7]));
    expect(out.step_ls).toEqual(rows.map((r) => r[4] + 1));
  });

  it("check_completion ends items at the step limit and passes empty input through", async () => {
    expect(
      await call(server(), "surveycpm_check_completion", {
        step_ls: [3, 9],
        state_ls: ["write", "write"],
        surveycpm_max_step: 9,
      }),
    ).toEqual({ state_ls: ["write", "done"] });
    expect(await call(server(), "surveycpm_check_completion", { step_ls: [], state_ls: ["x"] })).toEqual({
      state_ls: ["x"],
    });
  });

  it("format_output writes Markdown: numbered, cleaned titles, plans in italics, [k] citations", async () => {
    const survey = {
      title: "Survey",
      sections: [
        {
          title: "Section 1 Intro",
          plan: "p",
          content: "As Section-2 shows \\cite{textid3, textid1,bibkey: textid3}.\n\n\n\nMore.",
        },
        {
          title: "第一章 背景",
          plan: "the plan",
          subsections: [{ title: "2.1 Sub", plan: "sp", content: "  ## Head\nText \\cite{other}" }],
        },
      ],
    };
    const out = await call(server(), "surveycpm_format_output", {
      survey_ls: [pyJsonDumps(survey), "<PAD>"],
      instruction_ls: ["x", "y"],
    });
    expect(out.ans_ls).toEqual([
      [
        "# Survey",
        "",
        "## 1 Intro",
        "",
        "As  shows [1][3].",
        "",
        "More.",
        "",
        "## 2 背景",
        "",
        "*the plan*",
        "",
        "### 2.1 Sub",
        "",
        "## Head",
        "",
        "Text",
      ].join("\n"),
      "No survey generated.",
    ]);
    expect(surveyMarkdown({})).toBe("No survey generated.");
  });

  it("bad input fails the step naming the tool and item", async () => {
    await expect(
      call(server(), "surveycpm_after_write", {
        response_ls: ["<action>x</action>"],
        survey_ls: ["{not json"],
        cursor_ls: ["section-1"],
        instruction_ls: ["x"],
        retrieved_info_ls: [""],
      }),
    ).rejects.toThrow("custom.surveycpm_after_write: item 0 of survey_ls is not valid JSON");
    await expect(
      call(server(), "surveycpm_after_write", {
        response_ls: ["<action>x</action>"],
        survey_ls: [pyJsonDumps(plan)],
        cursor_ls: ["section-9"],
        instruction_ls: ["x"],
        retrieved_info_ls: [""],
        surveycpm_hard_mode: false,
      }),
    ).rejects.toThrow("custom.surveycpm_after_write: item 0: the survey has no section-9");
    await expect(
      call(server(), "surveycpm_update_state", {
        state_ls: ["search"],
        cursor_ls: ["outline"],
        extend_time_ls: [0],
        extend_result_ls: [],
        step_ls: ["zero"],
        parsed_ls: [],
      }),
    ).rejects.toThrow("custom.surveycpm_update_state: item 0 of `step_ls` must be a whole number");
  });
});

describe("helpers", () => {
  it("parses thought and action; a write takes the action's text", () => {
    expect(
      parseAnswer('<thought> hmm </thought><action>{"name": "nop"}</action>', true, { valid: ["nop"], hard: false }),
    ).toEqual({
      thought: "hmm",
      action: { name: "nop" },
      ok: true,
    });
    expect(parseAnswer("<action>{bad</action>", true, { valid: ["nop"], hard: false }).ok).toBe(false);
    expect(parseAnswer("<action> text </action>", false, { valid: ["write"], hard: false }).action).toEqual({
      name: "write",
      content: "text",
    });
  });

  it("cited keys, language check and title cleaning", () => {
    expect(citedKeys("a \\cite{k1, k2} \\citep{k3} \\nocite{k2} \\citestyle{x} \\cite{#1}").sort()).toEqual([
      "k1",
      "k3",
    ]);
    expect(languageMatches("Plain English text.", "an English request")).toBe(true);
    expect(languageMatches("中文的内容很多", "写一篇综述")).toBe(true);
    expect(languageMatches("mostly English 中", "an English request")).toBe(false);
    // Upstream's "section" pattern takes one digit or dot after the word (its `[…]*` repeats a `]`).
    expect(["Section-2. Methods", "3.1.2， Deep", "(2) Two", "一、起源", "二 Items"].map(cleanTitle)).toEqual([
      ". Methods",
      "Deep",
      "Two",
      "起源",
      "Items",
    ]);
  });
});

describe("custom.search_o1_combine_*", () => {
  it("appends each item's new query and reasoning, replacing the placeholder first; inputs are not changed", async () => {
    const subq = [["<PAD>"], ["q0"]];
    const out = await call(server(), "search_o1_combine_list", {
      total_subq_list: subq,
      extract_query_list: ["a", "b"],
      total_reason_list: [["<PAD>"], ["<PAD>"]],
      extract_reason_list: ["ra", "rb"],
    });
    expect(out).toEqual({ total_subq_list: [["a"], ["q0", "b"]], total_reason_list: [["ra"], ["rb"]] });
    expect(subq).toEqual([["<PAD>"], ["q0"]]);
    expect(
      await call(server(), "search_o1_combine_final_information", {
        total_final_info_list: [["<PAD>"], ["i0"]],
        extract_final_infor_list: ["i1"],
      }),
    ).toEqual({ total_final_info_list: [["i1"], ["i0"]] });
    await expect(
      call(server(), "search_o1_combine_list", {
        total_subq_list: ["x"],
        extract_query_list: ["a"],
        total_reason_list: [],
        extract_reason_list: [],
      }),
    ).rejects.toThrow("custom.search_o1_combine_list: item 0 of `total_subq_list` must be a list");
  });
});

describe("prompt.surveycpm_*", () => {
  it("renders each step's template with the task note, cursor and information", async () => {
    const t = tempDir({
      "prompt/s.jinja": "{{user_query}}|{{current_outline}}|{{current_instruction}}",
      "prompt/i.jinja": "{{user_query}}|{{current_information}}",
      "prompt/w.jinja": "{{current_survey}}|{{current_instruction}}|{{current_information}}",
      "prompt/e.jinja": "{{current_survey}}",
    });
    try {
      const p = promptServer();
      const render = (name: string, args: Record<string, unknown>) => p.call("prompt", name, args, { cwd: t.dir });
      const survey = pyJsonDumps({ title: "T", sections: [{ title: "A", plan: "p" }] });
      expect(
        await render("surveycpm_search", {
          instruction_ls: ["Q & A"],
          survey_ls: ["<PAD>"],
          cursor_ls: ["outline"],
          template: "prompt/s.jinja",
        }),
      ).toEqual({ prompt_ls: ["Q &amp; A|There is no survey.|You need to update outline"] });
      expect(
        await render("surveycpm_init_plan", {
          instruction_ls: ["Q"],
          retrieved_info_ls: ["<PAD>"],
          template: "prompt/i.jinja",
        }),
      ).toEqual({ prompt_ls: ["Q|"] });
      expect(
        await render("surveycpm_write", {
          instruction_ls: ["Q"],
          survey_ls: [survey],
          cursor_ls: [null],
          retrieved_info_ls: ["bibkey:textid1\np"],
          template: "prompt/w.jinja",
        }),
      ).toEqual({
        prompt_ls: ["# Title: [OK] T\n# Section-1 [A]: [PLAN] p\n|You need to update None|bibkey:textid1\np"],
      });
      expect(
        await render("surveycpm_extend_plan", {
          instruction_ls: ["Q"],
          survey_ls: [survey],
          template: "prompt/e.jinja",
        }),
      ).toEqual({
        prompt_ls: ["# Title: [OK] T\n# Section-1 [A]: [PLAN] p\n"],
      });
    } finally {
      t.cleanup();
    }
  });
});
