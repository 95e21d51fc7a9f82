/**
 * Static pre-pass findings as the agent's features read them (the static_analysis tool, the review's
 * static engine, Ask's drafts): the row shape, and the category and advice each tool's rule family
 * maps to, in one place so a static finding gets the same category wherever it shows.
 */
import type { Finding } from "../codebase/analysis/types.ts";
import { parseTrace, type Category, type TraceStep } from "../shared/findings.ts";

/** A pre-pass finding as the review reads it: the severity is a plain string, checked again here. */
export type StaticInput = Omit<Finding, "severity" | "trace"> & { severity: string; trace?: TraceStep[] | null };

/** A `static_finding` row as a StaticInput: its trace (JSON text) read back, dropped when not a valid trace. */
export function staticInputFromRow<R extends Omit<StaticInput, "trace"> & { trace: string | null }>(
  row: R,
): StaticInput {
  const { trace, ...rest } = row;
  const steps = parseTrace(trace);
  return steps ? { ...rest, trace: steps } : rest;
}

/** Why each family matters and what to do, in one place (shown as explanation and suggested fix). */
const ADVICE: { match: RegExp; category: Category; fix: string }[] = [
  {
    match: /^secrets\//,
    category: "security",
    fix: "Remove the secret from the code, rotate it (treat it as leaked), and load it from the environment or a secret store.",
  },
  {
    match: /^injection\/sql|^security\/detect-sql|^S608$|^B608$/,
    category: "security",
    fix: "Use parameterised queries (placeholders with bound values) instead of building SQL from strings.",
  },
  {
    match: /^injection\/command|child-process|^S60[2-7]$|^B60[2-7]$/,
    category: "security",
    fix: "Do not pass user input to a shell: call the program with an argument array (no shell) and validate the input against an allow-list.",
  },
  {
    match: /^injection\/code|eval|^S307$|^B307$/,
    category: "security",
    fix: "Never evaluate strings built from input; parse the data with a real parser or dispatch through a fixed table.",
  },
  {
    match: /^injection\/template/,
    category: "security",
    fix: "Render templates from fixed files and pass user input only as context values, with autoescaping on.",
  },
  {
    match: /^deserialization|^S301$|^B301$|^S506$|^B506$/,
    category: "security",
    fix: "Deserialize untrusted data only with safe loaders (JSON, yaml.safe_load) — never pickle/marshal/unsafe YAML.",
  },
  {
    match: /^path-traversal|non-literal-fs-filename/,
    category: "security",
    fix: "Resolve the path against a fixed base directory and refuse results outside it (after normalisation and symlink resolution).",
  },
  {
    match: /^tls\/|^S501$|^B501$/,
    category: "security",
    fix: "Keep certificate verification on; trust a private CA by configuring it rather than disabling checks.",
  },
  {
    match: /^crypto\/|^S30[3-5]$|^S311$|^B30[3-5]$|^B311$/,
    category: "security",
    fix: "Use a modern algorithm (SHA-256+/bcrypt/argon2 for passwords, AES-GCM) and a cryptographically secure random source.",
  },
  { match: /^redirect\//, category: "security", fix: "Redirect only to relative paths or to hosts on an allow-list." },
  {
    match: /^xss\//,
    category: "security",
    fix: "Escape request data for HTML where it is written (or render it through an autoescaping template), or answer with JSON / text/plain.",
  },
  {
    match: /^ssrf/,
    category: "security",
    fix: "Fix the host in code, or parse the URL and check its host against an allow-list before the request.",
  },
  {
    match: /^injection\/nosql/,
    category: "security",
    fix: "Cast query values to strings (or validate their type) so a body cannot smuggle in operators like $ne or $where.",
  },
  {
    match: /^injection\/(?:xpath|ldap)/,
    category: "security",
    fix: "Bind the value as a variable or escape it for the query language; never concatenate it into the expression.",
  },
  {
    match: /^xxe/,
    category: "security",
    fix: "Parse untrusted XML with entity resolution and DTD loading off (or with defusedxml).",
  },
  {
    match: /^trust-boundary\//,
    category: "security",
    fix: "Validate request data against what the session may hold (an allow-list) before storing it there.",
  },
  {
    match: /^cookie\//,
    category: "security",
    fix: "Set Secure and HttpOnly (and SameSite) on cookies that carry sessions or other state.",
  },
  {
    match: /^security\//,
    category: "security",
    fix: "Review the flagged call; follow the rule's documentation for the safe alternative.",
  },
];

export function adviceFor(f: Pick<StaticInput, "tool" | "ruleId">): { category: Category; fix?: string } {
  if (f.tool === "shellcheck")
    return {
      category: "correctness",
      fix: `ShellCheck's page for ${f.ruleId} explains the problem and the fix: https://www.shellcheck.net/wiki/${f.ruleId}`,
    };
  const hit = ADVICE.find((a) => a.match.test(f.ruleId));
  if (hit) return { category: hit.category, fix: hit.fix };
  if (f.tool === "bandit" || (f.tool === "ruff" && /^S\d/.test(f.ruleId))) return { category: "security" };
  return { category: "correctness" };
}

/** The category a static finding of this tool and rule becomes (the same as its review finding's). */
export function staticCategory(f: Pick<StaticInput, "tool" | "ruleId">): Category {
  return adviceFor(f).category;
}
