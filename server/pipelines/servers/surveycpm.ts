/**
 * The SurveyCPM agent's state machine (UltraRAG's AgentCPM-Report demo, spec §5.9), as custom-server
 * tools. Per item the agent is in one state — `search` → `analyst-init_plan` → (`search` → `write`)…
 * → `analyst-extend_plan` → … → `done` — chosen by `surveycpm_update_state` after each step, and
 * routed by `router.surveycpm_state_router`. The model answers `<thought>…</thought><action>…</action>`:
 * a JSON action (`search` keywords, `init-plan` title and sections, `extend-plan` position and
 * subsections, `nop`) or, when writing, the section's text. An answer that does not parse keeps the
 * item in its state (it is asked again) until `surveycpm_max_step` ends it. Retrieved passages get
 * citation keys `textid<k>` (stable per item across rounds), which the final Markdown turns into
 * `[k]`. Nothing here mutates its inputs.
 */
import { describe, listArg, ToolError, type ToolArgs, type ToolDef } from "./define.ts";
import { cursorOf, nodeAt, parseSurvey, pyJsonDumps, updateAt, type Node, type Survey } from "./survey.ts";

export type SurveyState = { citations: Map<number, Map<string, string>> };
export const surveyState = (): SurveyState => ({ citations: new Map() });

const PAD = "<PAD>";
const isNode = (v: unknown): v is Node => v !== null && typeof v === "object" && !Array.isArray(v);
const keysAre = (o: Node, keys: string[]) =>
  Object.keys(o).length === keys.length && keys.every((k) => Object.hasOwn(o, k));
const nonEmptyText = (v: unknown): v is string => typeof v === "string" && v.length > 0;

// ── parsing and validating a model answer ───────────────────────────────────────────────────────

const CHINESE = /[\u4e00-\u9fff]/g;
const ASCII_PUNCT = /[!"#$%&'()*+,\-./:;<=>?@\\[\]^_`{|}~0-9]/g;

/** The texts of an action's values (one level into lists and objects), for the language check. */
function textsOf(item: unknown): string {
  const parts: string[] = [];
  const shallow = (o: Node) => {
    for (const v of Object.values(o)) if (typeof v === "string") parts.push(v);
  };
  if (typeof item === "string") return item;
  if (isNode(item)) {
    for (const v of Object.values(item)) {
      if (typeof v === "string") parts.push(v);
      else if (Array.isArray(v))
        for (const x of v) {
          if (typeof x === "string") parts.push(x);
          else if (isNode(x)) shallow(x);
        }
    }
  } else if (Array.isArray(item)) {
    for (const v of item) {
      if (typeof v === "string") parts.push(v);
      else if (isNode(v))
        for (const x of Object.values(v)) {
          if (typeof x === "string") parts.push(x);
          else if (Array.isArray(x)) for (const y of x) if (typeof y === "string") parts.push(y);
        }
    }
  }
  return parts.map((p) => `${p}\n`).join("");
}

/** Whether the text is written in the instruction's language (Chinese > 60 %, else < 5 % Chinese). */
export function languageMatches(item: unknown, instruction: string): boolean {
  if (typeof item !== "string" && !isNode(item) && !Array.isArray(item)) return false;
  const text = textsOf(item)
    .trim()
    .replace(/[ \n\t]/g, "")
    .replace(/(\\\\cite)\{([\s\S]*?)\}/g, "")
    .replace(/(\\cite)\{([\s\S]*?)\}/g, "")
    .replace(ASCII_PUNCT, "");
  if (text.length === 0) return true;
  const chinese = (text.match(CHINESE) ?? []).length / [...text].length;
  return /[\u4e00-\u9fff]/.test(instruction) ? chinese > 0.6 : chinese < 0.05;
}

/** Citation keys a text cites with `\cite{a, b}` (and similar `\…cite…{}`), minus those only `\nocite`d. */
export function citedKeys(text: string): string[] {
  const placeholder = /^#\d+$/;
  const keys = new Set<string>();
  const each = (re: RegExp, fn: (key: string) => void) => {
    for (const m of text.matchAll(re))
      for (const raw of m[1]!.split(",")) {
        if (placeholder.test(raw)) continue;
        const key = raw.trim();
        if (key && key !== "*") fn(key);
      }
  };
  each(/\\\w*cite(?!style)\w*\{(.+?)\}/g, (k) => keys.add(k));
  each(/\\nocite\{(.+?)\}/g, (k) => keys.delete(k));
  return [...keys];
}

interface Check {
  valid: string[];
  hard: boolean;
  survey?: Survey;
  cursor?: string | null;
  instruction?: string;
  bibkeys?: string[] | null;
}

const subsectionsValid = (list: unknown, min: number, max: number, check: Check) =>
  Array.isArray(list) &&
  list.length > 0 &&
  list.every((s) => isNode(s) && keysAre(s, ["title", "plan"]) && nonEmptyText(s.title) && nonEmptyText(s.plan)) &&
  (!check.hard || (list.length >= min && list.length <= max));

/** Upstream's surveycpm_validate_action: the action's shape, and in hard mode its size and language. */
export function validAction(action: unknown, check: Check): boolean {
  if (!isNode(action) || typeof action.name !== "string" || !check.valid.includes(action.name)) return false;
  const lang = (v: unknown) => !check.hard || !check.instruction || languageMatches(v, check.instruction);
  switch (action.name) {
    case "search": {
      const kw = action.keywords;
      return (
        keysAre(action, ["name", "keywords"]) &&
        Array.isArray(kw) &&
        kw.length > 0 &&
        kw.every(nonEmptyText) &&
        (!check.hard || kw.length <= 5)
      );
    }
    case "init-plan":
      return (
        keysAre(action, ["name", "title", "sections"]) &&
        nonEmptyText(action.title) &&
        subsectionsValid(action.sections, 3, 12, check) &&
        lang({ title: action.title, sections: action.sections })
      );
    case "extend-plan": {
      const position = action.position;
      if (!keysAre(action, ["name", "position", "subsections"]) || !nonEmptyText(position)) return false;
      if (check.cursor !== undefined && check.cursor !== null && position !== check.cursor) return false;
      if (position.split(".").length - 1 >= 2) return false;
      if (!Array.isArray(action.subsections) || action.subsections.length === 0) return false;
      if (check.survey && Object.keys(check.survey).length > 0) {
        try {
          if ("subsections" in nodeAt(check.survey, position)) return false; // already extended
        } catch {
          return false;
        }
      }
      return subsectionsValid(action.subsections, 2, 7, check) && lang({ subsections: action.subsections });
    }
    case "nop":
      return keysAre(action, ["name"]);
    case "write": {
      const content = action.content;
      if (!keysAre(action, ["name", "content"]) || typeof content !== "string") return false;
      if (!check.hard) return true;
      if (content.includes("#") || content.toLowerCase().includes("bibkey") || content.trim().length <= 50)
        return false;
      if (!lang(content)) return false;
      if (check.bibkeys?.length && citedKeys(content).some((k) => !check.bibkeys!.includes(k))) return false;
      return (content.match(/\\cite/g) ?? []).length <= 12;
    }
    default:
      return false;
  }
}

export interface Parsed {
  thought: string;
  action: Node;
  ok: boolean;
}

/** `<thought>…</thought><action>…</action>`: a JSON action, or (`json` false) the text to write. */
export function parseAnswer(text: string, json: boolean, check: Check): Parsed {
  const thought = /<thought>([\s\S]*?)<\/thought>/.exec(text)?.[1]?.trim() ?? "";
  const body = /<action>([\s\S]*?)<\/action>/.exec(text)?.[1]?.trim();
  if (!json) {
    const action = { name: "write", content: body ?? "" };
    return { thought, action, ok: validAction(action, check) };
  }
  if (body === undefined) return { thought, action: {}, ok: false };
  let action: unknown;
  try {
    action = JSON.parse(body);
  } catch {
    return { thought, action: {}, ok: false };
  }
  if (!validAction(action, check)) return { thought, action: isNode(action) ? action : {}, ok: false };
  return { thought, action: action as Node, ok: true };
}

// ── argument helpers ─────────────────────────────────────────────────────────────────────────────

const T = (name: string) => `custom.${name}`;

function texts(args: ToolArgs, name: string, tool: string): string[] {
  return listArg(args, name, tool).map((v, i) => {
    if (typeof v === "string") return v;
    if (v === null || v === undefined) return "";
    throw new ToolError(`${tool}: item ${i} of \`${name}\` must be text, got ${describe(v)}`);
  });
}

function numbers(args: ToolArgs, name: string, tool: string): number[] {
  return listArg(args, name, tool).map((v, i) => {
    if (typeof v === "number" && Number.isInteger(v)) return v;
    throw new ToolError(`${tool}: item ${i} of \`${name}\` must be a whole number, got ${describe(v)}`);
  });
}

function wholeParam(v: unknown, name: string, tool: string): number {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v;
  throw new ToolError(`${tool}: ${name} must be a whole number, got ${describe(v)}`);
}

const hardMode = (v: unknown) => (v === undefined ? true : Boolean(v));
const zipLength = (...lists: unknown[][]) => Math.min(...lists.map((l) => l.length));
const cursorValue = (v: unknown) => (typeof v === "string" ? v : null);

/** One item's retrieved passages as ret_psg_ls holds them: one list of texts per search keyword. */
function passageGroups(v: unknown, tool: string, i: number): string[][] {
  if (v === null || v === undefined || v === PAD) return [];
  if (!Array.isArray(v)) throw new ToolError(`${tool}: item ${i} of ret_psg_ls must be a list of passage lists`);
  return v.map((group, g) => {
    const list = Array.isArray(group) ? group : [group];
    return list.map((p, j) => {
      if (typeof p === "string") return p;
      throw new ToolError(`${tool}: passage ${j} of search ${g} of item ${i} in ret_psg_ls must be text`);
    });
  });
}

/** Up to `limit` distinct passages, a fair share from each search first, then the rest in order. */
function pickPassages(groups: string[][], limit: number): string[] {
  const share = Math.max(1, Math.floor(limit / groups.length));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const g of groups)
    for (const p of g.slice(0, share))
      if (!seen.has(p)) {
        seen.add(p);
        out.push(p);
      }
  for (const g of groups)
    for (const p of g.slice(share))
      if (out.length < limit && !seen.has(p)) {
        seen.add(p);
        out.push(p);
      }
  return out;
}

// ── the final Markdown ──────────────────────────────────────────────────────────────────────────

function cleanContent(content: string): string {
  return content
    .replace(/\bSection-(\d+(?:\.\d+)*)\b/g, "")
    .replace(/^[ \t]+(#{1,6})\s+/gm, "$1 ")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/([^\n])\n(#{1,6}\s)/g, "$1\n\n$2")
    .replace(/(#{1,6}\s[^\n]+)\n([^\n#])/g, "$1\n\n$2")
    .trim();
}

const DOT = "[.\\uFF0E\\u3002]";
const CN_NUM = "一二三四五六七八九十";
/** A section title without its numbering ("Section 2.", "3.1", "(2)", "第一章", "二、"). */
export function cleanTitle(title: string): string {
  return (
    title
      // Upstream's `[\d[.．。]]*` is one digit or dot, then any number of `]` (its inner `[` is literal).
      .replace(new RegExp(`^\\s*section[-\\s]*[\\d[.\\uFF0E\\u3002]\\]*\\s*`, "i"), "")
      .replace(/^(?:第\s*[0-9一二三四五六七八九十百千]+\s*(?:章|节|部(?:分)?|篇|卷)\s*[-—:：.、，,]?\s*)+/, "")
      .replace(new RegExp(`^\\s*\\d+(?:${DOT}\\d+)+[.、，,]?\\s*`), "")
      .replace(/^\s*\d+[.、，,]\s*/, "")
      .replace(/[(（]\d+[)）]\s*/g, "")
      .replace(new RegExp(`^\\s*[${CN_NUM}]+(?:${DOT}\\d+)+[.、，,]?\\s*`), "")
      .replace(new RegExp(`^\\s*[${CN_NUM}]+[.、，,]\\s*`), "")
      .replace(new RegExp(`[(（][${CN_NUM}]+[)）]\\s*`, "g"), "")
      .replace(new RegExp(`^[${CN_NUM}]+\\s+`), "")
      .trim()
  );
}

/** The survey as Markdown: numbered headings, written text (or the plan in italics), `[k]` citations. */
export function surveyMarkdown(survey: Survey): string {
  if (Object.keys(survey).length === 0) return "No survey generated.";
  const lines: string[] = [`# ${String(survey.title ?? "Untitled Survey")}`, ""];
  const body = (n: Node) => {
    if (n.content) {
      const c = cleanContent(String(n.content));
      if (c) lines.push(c, "");
    } else if (n.plan) lines.push(`*${String(n.plan).trim()}*`, "");
  };
  const sections = Array.isArray(survey.sections) ? (survey.sections as unknown[]).filter(isNode) : [];
  for (const [i, s] of sections.entries()) {
    const key = "name" in s ? "name" : "title";
    const title = (n: Node) => cleanTitle(String(n[key] ?? ""));
    lines.push(`## ${i + 1} ${title(s)}`, "");
    body(s);
    const subs = Array.isArray(s.subsections) ? (s.subsections as unknown[]).filter(isNode) : [];
    for (const [j, sub] of subs.entries()) {
      lines.push(`### ${i + 1}.${j + 1} ${title(sub)}`, "");
      body(sub);
      const leaves = Array.isArray(sub.subsections) ? (sub.subsections as unknown[]).filter(isNode) : [];
      for (const [k, leaf] of leaves.entries()) {
        lines.push(`#### ${i + 1}.${j + 1}.${k + 1} ${title(leaf)}`, "");
        body(leaf);
      }
    }
  }
  const text = lines.join("\n").replace(/\n{3,}/g, "\n\n");
  return text
    .replace(/\\cite\{(.+?)\}/g, (_m, group: string) => {
      const nums = new Set<number>();
      for (let key of group.split(",").map((b) => b.trim())) {
        if (key.startsWith("bibkey: ")) key = key.slice("bibkey: ".length).trim();
        const m = /^textid(\d+)$/.exec(key.replace(/^textid\s*/, "textid"));
        if (m) nums.add(Number(m[1]));
      }
      return [...nums]
        .sort((a, b) => a - b)
        .map((n) => `[${n}]`)
        .join("");
    })
    .trim();
}

// ── the tools ───────────────────────────────────────────────────────────────────────────────────

const STATE_OUT = "state_ls,cursor_ls,survey_ls,step_ls,extend_time_ls,extend_result_ls,retrieved_info_ls,parsed_ls";

export const surveycpmTools: Record<string, ToolDef<SurveyState>> = {
  surveycpm_init_citation_registry: {
    params: ["instruction_ls"],
    output: "instruction_ls->instruction_ls",
    run(args, _ctx, state) {
      state.citations.clear();
      return { instruction_ls: listArg(args, "instruction_ls", T("surveycpm_init_citation_registry")) };
    },
  },
  surveycpm_state_init: {
    params: ["instruction_ls"],
    output: `instruction_ls->${STATE_OUT}`,
    run(args) {
      const n = listArg(args, "instruction_ls", T("surveycpm_state_init")).length;
      const fill = <V>(v: V) => Array.from({ length: n }, () => v);
      return {
        state_ls: fill("search"),
        cursor_ls: fill("outline"),
        survey_ls: fill(PAD),
        step_ls: fill(0),
        extend_time_ls: fill(0),
        extend_result_ls: fill(PAD),
        retrieved_info_ls: fill(PAD),
        parsed_ls: fill(true),
      };
    },
  },
  surveycpm_parse_search_response: {
    params: ["response_ls", "surveycpm_hard_mode"],
    output: "response_ls,surveycpm_hard_mode->keywords_ls,parsed_ls",
    run(args) {
      const hard = hardMode(args.surveycpm_hard_mode);
      const parsed = texts(args, "response_ls", T("surveycpm_parse_search_response")).map((r) =>
        parseAnswer(r, true, { valid: ["search"], hard }),
      );
      return {
        keywords_ls: parsed.map((p) => (Array.isArray(p.action.keywords) ? p.action.keywords : [])),
        parsed_ls: parsed.map((p) => p.ok),
      };
    },
  },
  surveycpm_process_passages: {
    params: ["ret_psg_ls"],
    output: "ret_psg_ls->retrieved_info_ls",
    run(args) {
      const tool = T("surveycpm_process_passages");
      return {
        retrieved_info_ls: listArg(args, "ret_psg_ls", tool).map((v, i) => {
          const groups = passageGroups(v, tool, i);
          return groups.length ? pickPassages(groups, 20).join("\n\n").trim() : "";
        }),
      };
    },
  },
  surveycpm_process_passages_with_citation: {
    params: ["ret_psg_ls", "survey_ls"],
    output: "ret_psg_ls,survey_ls->retrieved_info_ls,ret_psg",
    run(args, _ctx, state) {
      const tool = T("surveycpm_process_passages_with_citation");
      const lists = listArg(args, "ret_psg_ls", tool);
      const surveys = listArg(args, "survey_ls", tool);
      const retrieved_info_ls: string[] = [];
      const ret_psg: string[][] = [];
      for (let i = 0; i < zipLength(lists, surveys); i++) {
        const groups = passageGroups(lists[i], tool, i);
        if (!groups.length) {
          retrieved_info_ls.push("");
          ret_psg.push([]);
          continue;
        }
        // Fewer passages once there is an outline: the model then writes one section at a time.
        const limit = Object.keys(parseSurvey(surveys[i], tool, i)).length ? 10 : 20;
        let ids = state.citations.get(i);
        if (!ids) state.citations.set(i, (ids = new Map()));
        const cited = pickPassages(groups, limit).map((p) => {
          const key = p.trim();
          let id = ids.get(key);
          if (id === undefined) ids.set(key, (id = `textid${ids.size + 1}`));
          return `bibkey:${id}\n${p}`;
        });
        retrieved_info_ls.push(cited.join("\n\n").trim());
        ret_psg.push(cited);
      }
      return { retrieved_info_ls, ret_psg };
    },
  },
  surveycpm_after_init_plan: {
    params: ["response_ls", "survey_ls", "instruction_ls", "surveycpm_hard_mode"],
    output: "response_ls,survey_ls,instruction_ls,surveycpm_hard_mode->survey_ls,cursor_ls,parsed_ls",
    run(args) {
      const tool = T("surveycpm_after_init_plan");
      const responses = texts(args, "response_ls", tool);
      const surveys = listArg(args, "survey_ls", tool);
      const instructions = texts(args, "instruction_ls", tool);
      const hard = hardMode(args.surveycpm_hard_mode);
      const out = { survey_ls: [] as unknown[], cursor_ls: [] as (string | null)[], parsed_ls: [] as boolean[] };
      for (let i = 0; i < zipLength(responses, surveys, instructions); i++) {
        const p = parseAnswer(responses[i]!, true, { valid: ["init-plan"], hard, instruction: instructions[i]! });
        out.parsed_ls.push(p.ok);
        if (p.ok) {
          const survey = { title: p.action.title ?? "", sections: p.action.sections ?? [] };
          out.survey_ls.push(pyJsonDumps(survey));
          out.cursor_ls.push(cursorOf(survey));
        } else {
          out.survey_ls.push(surveys[i]);
          out.cursor_ls.push("outline");
        }
      }
      return out;
    },
  },
  surveycpm_after_write: {
    params: ["response_ls", "survey_ls", "cursor_ls", "instruction_ls", "retrieved_info_ls", "surveycpm_hard_mode"],
    output:
      "response_ls,survey_ls,cursor_ls,instruction_ls,retrieved_info_ls,surveycpm_hard_mode->survey_ls,cursor_ls,parsed_ls",
    run(args) {
      const tool = T("surveycpm_after_write");
      const responses = texts(args, "response_ls", tool);
      const surveys = listArg(args, "survey_ls", tool);
      const cursors = listArg(args, "cursor_ls", tool);
      const instructions = texts(args, "instruction_ls", tool);
      const infos = texts(args, "retrieved_info_ls", tool);
      const hard = hardMode(args.surveycpm_hard_mode);
      const out = { survey_ls: [] as unknown[], cursor_ls: [] as unknown[], parsed_ls: [] as boolean[] };
      for (let i = 0; i < zipLength(responses, surveys, cursors, instructions, infos); i++) {
        const survey = parseSurvey(surveys[i], tool, i);
        const cursor = cursorValue(cursors[i]);
        const info = infos[i]!;
        const bibkeys = info && info !== PAD ? citedKeys(info) : null;
        const p = parseAnswer(responses[i]!, false, {
          valid: ["write"],
          hard,
          survey,
          cursor,
          instruction: instructions[i]!,
          bibkeys,
        });
        out.parsed_ls.push(p.ok);
        const content = p.ok ? String(p.action.content ?? "") : "";
        if (content && cursor !== null) {
          const updated = at(tool, i, () => updateAt(survey, cursor, { content }));
          out.survey_ls.push(pyJsonDumps(updated));
          out.cursor_ls.push(cursorOf(updated));
        } else {
          out.survey_ls.push(surveys[i]);
          out.cursor_ls.push(cursors[i]);
        }
      }
      return out;
    },
  },
  surveycpm_after_extend: {
    params: ["response_ls", "survey_ls", "cursor_ls", "instruction_ls", "surveycpm_hard_mode"],
    output:
      "response_ls,survey_ls,cursor_ls,instruction_ls,surveycpm_hard_mode->survey_ls,cursor_ls,extend_result_ls,parsed_ls",
    run(args) {
      const tool = T("surveycpm_after_extend");
      const responses = texts(args, "response_ls", tool);
      const surveys = listArg(args, "survey_ls", tool);
      const cursors = listArg(args, "cursor_ls", tool);
      const instructions = texts(args, "instruction_ls", tool);
      const hard = hardMode(args.surveycpm_hard_mode);
      const out = {
        survey_ls: [] as unknown[],
        cursor_ls: [] as unknown[],
        extend_result_ls: [] as string[],
        parsed_ls: [] as boolean[],
      };
      for (let i = 0; i < zipLength(responses, surveys, cursors, instructions); i++) {
        const survey = parseSurvey(surveys[i], tool, i);
        const p = parseAnswer(responses[i]!, true, {
          valid: ["extend-plan", "nop"],
          hard,
          survey,
          cursor: cursorValue(cursors[i]),
          instruction: instructions[i]!,
        });
        out.parsed_ls.push(p.ok);
        const { position, subsections } = p.action;
        const extend = p.ok && p.action.name === "extend-plan" && nonEmptyText(position) && Array.isArray(subsections);
        if (extend && subsections.length) {
          const updated = at(tool, i, () => updateAt(survey, position, { subsections }));
          out.survey_ls.push(pyJsonDumps(updated));
          out.cursor_ls.push(cursorOf(updated));
          out.extend_result_ls.push("extended");
        } else {
          out.survey_ls.push(surveys[i]);
          out.cursor_ls.push(cursors[i]);
          out.extend_result_ls.push(p.ok && p.action.name === "nop" ? "nop" : "retry");
        }
      }
      return out;
    },
  },
  surveycpm_update_state: {
    params: [
      "state_ls",
      "cursor_ls",
      "extend_time_ls",
      "extend_result_ls",
      "step_ls",
      "parsed_ls",
      "surveycpm_max_step",
      "surveycpm_max_extend_step",
    ],
    output:
      "state_ls,cursor_ls,extend_time_ls,extend_result_ls,step_ls,parsed_ls,surveycpm_max_step,surveycpm_max_extend_step->state_ls,extend_time_ls,step_ls",
    run(args) {
      const tool = T("surveycpm_update_state");
      const states = texts(args, "state_ls", tool);
      const cursors = listArg(args, "cursor_ls", tool);
      const extendTimes = numbers(args, "extend_time_ls", tool);
      const results = listArg(args, "extend_result_ls", tool);
      const steps = numbers(args, "step_ls", tool);
      let parsedList = listArg(args, "parsed_ls", tool);
      if (parsedList.length === 0) parsedList = states.map(() => true);
      const maxStep = wholeParam(args.surveycpm_max_step ?? 140, "surveycpm_max_step", tool);
      const maxExtend = wholeParam(args.surveycpm_max_extend_step ?? 12, "surveycpm_max_extend_step", tool);
      const out = { state_ls: [] as string[], extend_time_ls: [] as number[], step_ls: [] as number[] };
      for (let i = 0; i < zipLength(states, cursors, extendTimes, steps, parsedList); i++) {
        const [state, step, times] = [states[i]!, steps[i]!, extendTimes[i]!];
        const cursor = cursorValue(cursors[i]);
        const result = results[i] === PAD || results[i] === undefined ? "" : results[i];
        const next = (s: string, t = times) => {
          out.state_ls.push(s);
          out.extend_time_ls.push(t);
          out.step_ls.push(step + 1);
        };
        if (step >= maxStep) next("done");
        else if (!parsedList[i]) {
          // Asked again; only a failed extension counts towards the extension budget.
          if (state !== "analyst-extend_plan") next(state);
          else next(times < maxExtend ? "analyst-extend_plan" : "done", times + 1);
        } else if (state === "search")
          next(cursor === "outline" ? "analyst-init_plan" : cursor !== null ? "write" : "done");
        else if (state === "analyst-init_plan") next(cursor !== "outline" && cursor !== null ? "search" : state);
        else if (state === "write") {
          if (cursor !== null) next("search");
          else if (times < maxExtend) next("analyst-extend_plan", times + 1);
          else next("done");
        } else if (state === "analyst-extend_plan") {
          if (result === "extended") next("search");
          else if (result === "nop") next("done");
          else next(times < maxExtend ? "analyst-extend_plan" : "done");
        } else next("done");
      }
      return out;
    },
  },
  surveycpm_check_completion: {
    params: ["step_ls", "state_ls", "surveycpm_max_step"],
    output: "step_ls,state_ls,surveycpm_max_step->state_ls",
    run(args) {
      const tool = T("surveycpm_check_completion");
      const steps = listArg(args, "step_ls", tool);
      const states = listArg(args, "state_ls", tool);
      if (!steps.length || !states.length) return { state_ls: states };
      const maxStep = wholeParam(args.surveycpm_max_step ?? 140, "surveycpm_max_step", tool);
      const n = zipLength(steps, states);
      return {
        state_ls: Array.from({ length: n }, (_, i) =>
          typeof steps[i] === "number" && (steps[i] as number) >= maxStep ? "done" : states[i],
        ),
      };
    },
  },
  surveycpm_format_output: {
    params: ["survey_ls", "instruction_ls"],
    output: "survey_ls,instruction_ls->ans_ls",
    run(args) {
      const tool = T("surveycpm_format_output");
      const surveys = listArg(args, "survey_ls", tool);
      const n = zipLength(surveys, listArg(args, "instruction_ls", tool));
      return { ans_ls: surveys.slice(0, n).map((s, i) => surveyMarkdown(parseSurvey(s, tool, i))) };
    },
  },
};

/** Runs an update at a position the model chose; a position the survey lacks fails the step clearly. */
function at<T>(tool: string, i: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RangeError) throw new ToolError(`${tool}: item ${i}: ${err.message}`);
    throw err;
  }
}
