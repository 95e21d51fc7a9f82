/**
 * The survey a SurveyCPM agent writes (AgentCPM-Report, spec §5.9): a JSON document
 * `{title, sections: [{title, plan, content?, subsections?: […]}]}` carried between steps as a JSON
 * string in `survey_ls` (`"<PAD>"` = no survey yet). This module is the survey model shared by the
 * custom server's state machine (surveycpm.ts) and the prompt server's task notes: the cursor (the
 * first section without content), reading and updating a position (`section-2.1`), and the task
 * note text the prompts show. Upstream's survey is Python `json.dumps` output, so it is written the
 * same way here (`", "` and `": "` separators, text not escaped to ASCII).
 */
import { ToolError } from "./define.ts";

export type Node = Record<string, unknown>;
export type Survey = Node;

const PAD = "<PAD>";
const isNode = (v: unknown): v is Node => v !== null && typeof v === "object" && !Array.isArray(v);
const children = (n: Node, key: "sections" | "subsections"): Node[] =>
  Array.isArray(n[key]) ? (n[key] as unknown[]).filter(isNode) : [];

/** `survey_ls` item → survey object; `"<PAD>"`, "" and null are the empty survey `{}`. */
export function parseSurvey(v: unknown, tool: string, i: number): Survey {
  if (v === null || v === undefined || v === "" || v === PAD) return {};
  if (isNode(v)) return v;
  if (typeof v !== "string") throw new ToolError(`${tool}: item ${i} of survey_ls must be the survey's JSON text`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new ToolError(`${tool}: item ${i} of survey_ls is not valid JSON (it holds the survey written so far)`);
  }
  if (!isNode(parsed)) throw new ToolError(`${tool}: item ${i} of survey_ls must be a JSON object`);
  return parsed;
}

const isEmpty = (s: Survey) => Object.keys(s).length === 0;

/** Python's `json.dumps(v, ensure_ascii=False)`. */
export function pyJsonDumps(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
    return String(v);
  }
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(", ")}]`;
  if (typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJsonDumps(x)}`)
      .join(", ")}}`;
  return JSON.stringify(String(v));
}

/** The first position still to write: "outline" (no survey), "section-2", "section-2.1", … or null (all written). */
export function cursorOf(survey: Survey): string | null {
  if (isEmpty(survey)) return "outline";
  const sections = children(survey, "sections");
  for (const [i, s] of sections.entries()) {
    if (!("content" in s)) return `section-${i + 1}`;
    for (const [j, sub] of children(s, "subsections").entries()) {
      if (!("content" in sub)) return `section-${i + 1}.${j + 1}`;
      for (const [k, leaf] of children(sub, "subsections").entries())
        if (!("content" in leaf)) return `section-${i + 1}.${j + 1}.${k + 1}`;
    }
  }
  return null;
}

/** The last position written, in document order ("outline" when nothing is). */
export function lastWritten(survey: Survey): string {
  if (isEmpty(survey)) return "outline";
  let last = "outline";
  for (const [i, s] of children(survey, "sections").entries()) {
    if (!("content" in s)) return last;
    last = `section-${i + 1}`;
    for (const [j, sub] of children(s, "subsections").entries()) {
      if (!("content" in sub)) return last;
      last = `section-${i + 1}.${j + 1}`;
      for (const [k, leaf] of children(sub, "subsections").entries()) {
        if (!("content" in leaf)) return last;
        last = `section-${i + 1}.${j + 1}.${k + 1}`;
      }
    }
  }
  return last;
}

/** `section-2.1` → [1, 0]; anything else is an error naming the position. */
function indices(position: string): number[] {
  const m = /^section-(\d+(?:\.\d+)*)$/.exec(position);
  if (!m) throw new RangeError(`"${position}" is not a position such as section-2 or section-2.1`);
  return m[1]!.split(".").map((p) => Number(p) - 1);
}

/** The node at `position` (a section or subsection); throws RangeError when there is none. */
export function nodeAt(survey: Survey, position: string): Node {
  let current: Node = survey;
  for (const [depth, idx] of indices(position).entries()) {
    const list = current[depth === 0 ? "sections" : "subsections"];
    const next = Array.isArray(list) ? (list as unknown[])[idx] : undefined;
    if (!isNode(next)) throw new RangeError(`the survey has no ${position}`);
    current = next;
  }
  return current;
}

/** A copy of the survey with `update`'s keys set at `position` ("outline" = the survey itself). */
export function updateAt(survey: Survey, position: string, update: Node): Survey {
  const copy = structuredClone(survey);
  const target = position === "outline" ? copy : nodeAt(copy, position);
  Object.assign(target, structuredClone(update));
  return copy;
}

/** One line of a node or text, as its task note shows it: `[OK] …` written, `[PLAN] …` planned. */
function abbrOneLine(v: unknown): string {
  if (isNode(v)) {
    if (v.content) return abbrOneLine(v.content);
    if ("plan" in v) return `[PLAN] ${oneLine(String(v.plan)).trim()}`;
    return "";
  }
  if (!v) return "";
  return `[OK] ${oneLine(String(v)).trim()}`;
}

/** Like abbrOneLine, but text is shown unprefixed and unstripped (the section being worked on). */
function toOneLine(v: unknown): string {
  if (isNode(v)) {
    if ("content" in v) return v.content ? `[OK] ${oneLine(String(v.content)).trim()}` : "";
    if ("plan" in v) return `[PLAN] ${oneLine(String(v.plan)).trim()}`;
    return "";
  }
  return v ? oneLine(String(v)) : "";
}

const oneLine = (s: string) => s.replaceAll("\n", " ");
const titleOf = (n: Node) => String(n["name" in n ? "name" : "title"] ?? "None");

/** The survey as the search and extend-plan prompts show it: one line per section. */
export function taskNote(survey: Survey): string {
  if (isEmpty(survey)) return "There is no survey.";
  let out = `# Title: ${"title" in survey ? abbrOneLine(survey.title) : "None"}\n`;
  for (const [i, s] of children(survey, "sections").entries()) {
    out += `# Section-${i + 1} [${titleOf(s)}]: ${abbrOneLine(s)}\n`;
    for (const [j, sub] of children(s, "subsections").entries()) {
      out += `    ## Section-${i + 1}.${j + 1} [${titleOf(sub)}]: ${abbrOneLine(sub)}\n`;
      for (const [k, leaf] of children(sub, "subsections").entries())
        out += `        ### Section-${i + 1}.${j + 1}.${k + 1} [${titleOf(leaf)}]: ${abbrOneLine(leaf)}\n`;
    }
  }
  return out;
}

/**
 * The survey as the write prompt shows it: like taskNote, but the part around the last written
 * position (its level and the one below) keeps its full text so the model continues from it.
 */
export function detailedTaskNote(survey: Survey): string {
  if (isEmpty(survey)) return "There is no survey.";
  let out = `# Title: ${"title" in survey ? abbrOneLine(survey.title) : "None"}\n`;
  const now = lastWritten(survey);
  const level = now.split(".").length - 1;
  const under = (prefix: string) => now.startsWith(prefix);
  for (const [i, s] of children(survey, "sections").entries()) {
    const full = level === 0 || (under(`section-${i + 1}`) && level === 1);
    out += `# Section-${i + 1} [${titleOf(s)}]: ${(full ? toOneLine : abbrOneLine)(s)}\n`;
    for (const [j, sub] of children(s, "subsections").entries()) {
      const fullSub = (under(`section-${i + 1}`) && level === 1) || (under(`section-${i + 1}.${j + 1}`) && level === 2);
      out += `    ## Section-${i + 1}.${j + 1} [${titleOf(sub)}]: ${(fullSub ? toOneLine : abbrOneLine)(sub)}\n`;
      for (const [k, leaf] of children(sub, "subsections").entries()) {
        const fullLeaf = under(`section-${i + 1}.${j + 1}`);
        out += `        ### Section-${i + 1}.${j + 1}.${k + 1} [${titleOf(leaf)}]: ${(fullLeaf ? toOneLine : abbrOneLine)(leaf)}\n`;
      }
    }
  }
  return out;
}
