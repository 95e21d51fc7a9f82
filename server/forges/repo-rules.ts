/**
 * A repository's own rules for Argus, in `.argus.yaml` at its root (read from the PR's head commit):
 *
 *   ignore: ["vendor/**", "docs/"]   # paths never reviewed nor commented on
 *   min_severity: low                # findings below are dropped
 *   min_confidence: 0.6              # findings below are not posted inline, only counted in the summary
 *   fail_on: high                    # the Argus check fails at this severity or worse (default: never)
 *   max_inline_comments: 10          # the rest go to the summary, most severe first
 *   max_files: 200                   # a bigger PR is reviewed on its first files (the summary lists the rest)
 *   max_lines: 20000                 # … and on its first changed lines
 *   engine: agent                    # agent | static | auto (the agent when a model is connected)
 *   instructions: |                  # told to the agent with the repository's guidance files
 *     Money is in cents; flag any float arithmetic on amounts.
 *
 * The file is the repository's, so hostile: bounded in size, parsed with positions, every problem
 * reported with its line (in the PR's summary) — and then the defaults apply, never half the file.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { severitySchema, type Severity } from "../shared/findings.ts";

export const RULES_FILE = ".argus.yaml";
const MAX_RULES_BYTES = 64 * 1024;
export const DEFAULT_INLINE_CAP = 20;
/** A review's scope names at most this many paths. */
export const MAX_FILES = 200;
export const DEFAULT_MAX_LINES = 20_000;

const rulesSchema = z
  .object({
    ignore: z.array(z.string().trim().min(1).max(500)).max(200).default([]),
    min_severity: severitySchema.default("info"),
    min_confidence: z.number().min(0).max(1).default(0),
    fail_on: severitySchema.nullable().default(null),
    max_inline_comments: z.number().int().min(0).max(100).default(DEFAULT_INLINE_CAP),
    max_files: z.number().int().min(1).max(MAX_FILES).default(MAX_FILES),
    max_lines: z.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_LINES),
    engine: z.enum(["auto", "agent", "static"]).default("auto"),
    instructions: z.string().max(8000, "at most 8,000 characters").nullable().default(null),
  })
  .strict();

export interface RepoRules {
  ignore: string[];
  minSeverity: Severity;
  /** Findings less confident than this (0–1) are counted in the summary, not posted inline. */
  minConfidence: number;
  failOn: Severity | null;
  /** Whether the file said fail_on (else the repository's setting in Argus applies). */
  failOnSet: boolean;
  inlineCap: number;
  maxFiles: number;
  maxLines: number;
  engine: "auto" | "agent" | "static";
  instructions: string | null;
}

export const DEFAULT_RULES: RepoRules = {
  ignore: [],
  minSeverity: "info",
  minConfidence: 0,
  failOn: null,
  failOnSet: false,
  inlineCap: DEFAULT_INLINE_CAP,
  maxFiles: MAX_FILES,
  maxLines: DEFAULT_MAX_LINES,
  engine: "auto",
  instructions: null,
};

export interface RulesRead {
  rules: RepoRules;
  /** One line per problem (`.argus.yaml line 3: …`); non-empty means the defaults applied. */
  problems: string[];
}

/** Parses the file's text: the rules, or the defaults and what was wrong (with lines). */
export function parseRepoRules(text: string): RulesRead {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  if (doc.errors.length)
    return {
      rules: DEFAULT_RULES,
      problems: doc.errors.map((e) => `${RULES_FILE} line ${at(e.pos[0])}: ${e.message.split("\n")[0]}`),
    };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    return { rules: DEFAULT_RULES, problems: [`${RULES_FILE}: ${(err as Error).message}`] };
  }
  const parsed = rulesSchema.safeParse(value);
  if (!parsed.success)
    return {
      rules: DEFAULT_RULES,
      problems: parsed.error.issues.map((issue) => {
        const node = doc.getIn(issue.path as (string | number)[], true) as
          { range?: [number, number, number] } | undefined;
        const key = issue.path.length ? issue.path.join(".") : "the file";
        return `${RULES_FILE} line ${at(node?.range?.[0])}: ${key}: ${issue.message}`;
      }),
    };
  const r = parsed.data;
  return {
    rules: {
      ignore: r.ignore,
      minSeverity: r.min_severity,
      minConfidence: r.min_confidence,
      failOn: r.fail_on,
      failOnSet: value !== null && typeof value === "object" && "fail_on" in value,
      inlineCap: r.max_inline_comments,
      maxFiles: r.max_files,
      maxLines: r.max_lines,
      engine: r.engine,
      instructions: r.instructions,
    },
    problems: [],
  };
}

/** The rules of a snapshot's tree (its root's `.argus.yaml`), the defaults when there is none. */
export async function readRepoRules(srcDir: string): Promise<RulesRead> {
  const file = path.join(srcDir, RULES_FILE);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return { rules: DEFAULT_RULES, problems: [] };
  if (info.size > MAX_RULES_BYTES)
    return { rules: DEFAULT_RULES, problems: [`${RULES_FILE} is larger than 64 KB: it was not read.`] };
  return parseRepoRules(await readFile(file, "utf8"));
}
