/**
 * The static engine: the embedded default that needs no LLM. It turns the snapshot's static pre-pass
 * (Argus's own rules, ESLint with the security config, ruff, bandit and ShellCheck when installed) into the same
 * report the agent writes, so a new user with no API key still gets a real review. Findings go
 * through the same checks as the agent's (location, fingerprint, dismissals, thresholds).
 */
import type { Finding } from "../codebase/analysis/types.ts";
import { parseTrace, type TraceStep } from "../shared/findings.ts";
import { severitySchema, type Category } from "./report/schema.ts";
import type { ProposedFinding } from "./report/build.ts";

export const STATIC_ENGINE_LABEL = "static analysis — no LLM";

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

function adviceFor(f: Pick<StaticInput, "tool" | "ruleId">): { category: Category; fix?: string } {
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

/** A merged finding's message ends with the other tools that reported it (analysis/merge.ts). */
function splitAlso(message: string): { said: string; also: string | null } {
  const m = /\s*\(also reported by ([^()]*)\)$/.exec(message);
  return m ? { said: message.slice(0, m.index), also: m[1]! } : { said: message, also: null };
}

/** First sentence of a tool message, as a finding title. */
function titleOf(f: StaticInput): string {
  const message = splitAlso(f.message.replace(/; flow: [^]*$/, "")).said;
  const capitalized = message.charAt(0).toUpperCase() + message.slice(1);
  const first = capitalized.split(/(?<=[.!?])\s/)[0]!.trim();
  const title = first.length > 160 ? `${first.slice(0, 157)}…` : first;
  return title || f.ruleId;
}

/**
 * Maps pre-pass findings to report findings, quoting the flagged lines as evidence. `lines(file)`
 * returns the file's lines (through the review's Sandbox) or null when the file cannot be read, in
 * which case the finding is kept without evidence and the location check decides.
 */
export async function staticFindingsToReport(
  findings: StaticInput[],
  lines: (file: string) => Promise<string[] | null>,
): Promise<{ summary: string; findings: ProposedFinding[] }> {
  const cache = new Map<string, Promise<string[] | null>>();
  const out: ProposedFinding[] = [];
  for (const f of findings) {
    if (!cache.has(f.file)) cache.set(f.file, lines(f.file));
    const text = await cache.get(f.file)!;
    const startLine = Math.max(1, f.startLine);
    const endLine = Math.max(startLine, Math.min(f.endLine, startLine + 9));
    const evidence = text ? text.slice(startLine - 1, endLine).join("\n") : "";
    // The evidence must be the file's own lines (the location check matches it). A finding with a
    // trace carries it (the page, SARIF and Markdown show it as a path); an older one stored only
    // the path in its message ("…; flow: …"), which goes into the explanation as a numbered list.
    const trace = f.trace?.length ? f.trace : null;
    const flowAt = f.message.lastIndexOf("; flow: ");
    const { said, also } = splitAlso(flowAt >= 0 ? f.message.slice(0, flowAt) : f.message);
    const rule = `${f.tool} ${f.ruleId}${also ? `; also reported by ${also}` : ""}`;
    const path = trace ? null : flowPath(f.message);
    const { category, fix } = adviceFor(f);
    out.push({
      title: titleOf(f),
      severity: severitySchema.safeParse(f.severity).data ?? "info",
      confidence: Math.min(1, Math.max(0, f.confidence)),
      category,
      file: f.file,
      start_line: startLine,
      end_line: endLine,
      evidence,
      explanation: path ? `${said} (${rule}).\n\nData flow:\n${path}` : `${said} (${rule})`,
      suggested_fix: fix,
      ruleId: f.ruleId,
      ...(trace ? { trace } : {}),
    });
  }
  return { summary: summarize(findings), findings: out };
}

/**
 * The taint engine also writes its trace into the message ("…; flow: a (line 3) → b (line 4) → sink
 * (line 6)"): for findings stored before the trace column, read back as a numbered path.
 */
export function flowPath(message: string): string | null {
  const at = message.lastIndexOf("; flow: ");
  if (at < 0) return null;
  const steps = message
    .slice(at + 8)
    .split(" → ")
    .filter(Boolean);
  if (steps.length === 0) return null;
  return steps.map((step, i) => `${i + 1}. ${step}`).join("\n");
}

function summarize(findings: StaticInput[]): string {
  if (findings.length === 0)
    return "The static analysis found no issues in the reviewed files. This engine runs rules, not a model: it cannot judge design or logic — run the agent engine for that.";
  const byTool = new Map<string, number>();
  for (const f of findings) byTool.set(f.tool, (byTool.get(f.tool) ?? 0) + 1);
  const files = new Set(findings.map((f) => f.file)).size;
  const tools = [...byTool].map(([t, n]) => `${t} ${n}`).join(", ");
  return `Static analysis flagged ${findings.length} issue${findings.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} (${tools}). This engine runs rules, not a model: it finds known-dangerous patterns and secrets, not design or logic flaws.`;
}
