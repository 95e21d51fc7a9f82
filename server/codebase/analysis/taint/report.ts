/**
 * From "untrusted data reached this sink" to a finding: the rule id, severity and confidence of each
 * weakness, which origins count (a file's contents are not an XSS), and the trace — source → steps →
 * sink — kept both structured (`trace`) and in the message (`flow: …`), which is what the database
 * stores and what the review's evidence and exports read back.
 */
import { finding, type RuleContext } from "../rules/context.ts";
import { SEVERITIES, type Finding, type Severity, type TraceStep } from "../types.ts";
import { CALIBRATION } from "./calibration.ts";
import { confidenceFrom } from "./calibration-model.ts";
import type { Flow, Origin, Step, Weakness } from "./values.ts";

interface WeaknessSpec {
  ruleId: string;
  severity: Severity;
  /** What the sink does with the value, for the message. */
  noun: string;
  /** Low-trust origins (argv, env, stdin, files) count, at low severity. */
  low: boolean;
}

export const WEAKNESSES: Record<Weakness, WeaknessSpec> = {
  xss: { ruleId: "xss/reflected", severity: "high", noun: "is written into an HTML response", low: false },
  sql: { ruleId: "injection/sql", severity: "critical", noun: "is built into an SQL query", low: true },
  nosql: { ruleId: "injection/nosql", severity: "high", noun: "is used as a database query filter", low: false },
  command: { ruleId: "injection/command", severity: "critical", noun: "is run as a command", low: true },
  code: { ruleId: "injection/code", severity: "critical", noun: "is evaluated as code", low: true },
  template: { ruleId: "injection/template", severity: "high", noun: "is compiled as a template", low: true },
  path: { ruleId: "path-traversal", severity: "high", noun: "is used as a file path", low: false },
  redirect: { ruleId: "redirect/open", severity: "medium", noun: "is the target of a redirect", low: false },
  ssrf: { ruleId: "ssrf", severity: "high", noun: "is the URL of a server-side request", low: false },
  xpath: { ruleId: "injection/xpath", severity: "high", noun: "is built into an XPath query", low: false },
  ldap: { ruleId: "injection/ldap", severity: "high", noun: "is built into an LDAP filter", low: false },
  xxe: { ruleId: "xxe", severity: "high", noun: "is parsed as XML with external entities on", low: true },
  deserialization: { ruleId: "deserialization/unsafe", severity: "critical", noun: "is deserialized", low: true },
  "trust-boundary": {
    ruleId: "trust-boundary/session",
    severity: "medium",
    noun: "is stored in the session as if trusted",
    low: false,
  },
  "weak-hash": { ruleId: "crypto/weak-hash", severity: "high", noun: "is hashed with a weak hash", low: false },
  cookie: {
    ruleId: "cookie/insecure",
    severity: "medium",
    noun: "sets a cookie without Secure / HttpOnly",
    low: false,
  },
  autoescape: {
    ruleId: "xss/autoescape-off",
    severity: "medium",
    noun: "renders templates without HTML escaping",
    low: false,
  },
  "weak-random": {
    ruleId: "crypto/insecure-random",
    severity: "medium",
    noun: "is used as a secret or token",
    low: false,
  },
};

export const ORIGIN_WORDS: Record<Origin, string> = {
  request: "request input",
  argv: "a command-line argument",
  env: "an environment variable",
  stdin: "standard input",
  file: "file contents",
  queue: "a queued job's payload",
  random: "a predictable random number",
  param: "a parameter",
};

/** Does this flow make `weakness` reachable (not cleaned, an origin that counts)? */
export function flowCounts(f: Flow, weakness: Weakness): boolean {
  if (f.cleaned.has(weakness)) return false;
  if (weakness === "cookie" || weakness === "autoescape") return false;
  if (f.origin === "param") return true;
  // The operator sets the environment: trusted (docs/static-analysis.md).
  if (f.origin === "env") return false;
  if (weakness === "weak-random") return f.origin === "random";
  if (f.origin === "random") return false;
  if (weakness === "weak-hash") return f.secret;
  if (weakness === "nosql") return f.origin === "request" && f.structured;
  return f.origin === "request" || WEAKNESSES[weakness].low;
}

export interface SinkHit {
  weakness: Weakness;
  flow: Flow;
  /** The sink: where the finding is reported. */
  at: Step & { endLine: number };
  /** "db.query()", "res.send()" … */
  sink: string;
}

export function traceOf(hit: SinkHit, file: string): TraceStep[] {
  const steps: TraceStep[] = hit.flow.steps.map((s) => ({ file: s.file ?? file, line: s.line, label: s.what }));
  const last = steps[steps.length - 1];
  if (!last || last.line !== hit.at.line || last.file !== (hit.at.file ?? file))
    steps.push({ file: hit.at.file ?? file, line: hit.at.line, label: hit.sink });
  return steps;
}

/** "flow: req.query.id (line 3) → id = … (line 4) → db.query() (line 6)"; other files are named. */
export function formatTrace(trace: TraceStep[], file: string): string {
  return trace
    .map((s) => `${s.label.replace(/[→\n]/g, " ")} (${s.file === file ? "" : `${s.file}:`}line ${s.line})`)
    .join(" → ");
}

export function hitToFinding(ctx: RuleContext, hit: SinkHit): Finding | null {
  const spec = WEAKNESSES[hit.weakness];
  const severity = severityFor(spec.severity, hit.flow.origin);
  const confidence = calibratedConfidence(spec.ruleId, hit.flow.origin);
  const file = hit.at.file ?? ctx.path;
  const trace = traceOf(hit, file);
  const message = `${ORIGIN_WORDS[hit.flow.origin]} ${spec.noun} by ${hit.sink}; flow: ${formatTrace(trace, file)}`;
  const f = finding({ ...ctx, path: file }, spec.ruleId, severity, confidence, hit.at.line, hit.at.endLine, message);
  if (f) f.trace = trace;
  return f;
}

/** The origin a taint finding's message names first ("request input …", "a command-line argument …"). */
export function originOfMessage(message: string): Origin | undefined {
  return (Object.keys(ORIGIN_WORDS) as Origin[]).find((o) => message.startsWith(`${ORIGIN_WORDS[o]} `));
}

/**
 * Where the data came from sets the severity: request data (and predictable randomness) the rule's
 * own; a queued payload (whoever can enqueue — often another service) one step lower; command-line
 * arguments, stdin and files (the person running the tool) low.
 */
export function severityFor(base: Severity, origin: Origin): Severity {
  if (origin === "request" || origin === "random" || origin === "param") return base;
  if (origin === "queue") return SEVERITIES[Math.min(SEVERITIES.indexOf(base) + 1, SEVERITIES.length - 1)]!;
  return "low";
}

/** The measured precision of the rule on Argus's suites (calibration.ts), for data from `origin`. */
export function calibratedConfidence(ruleId: string, origin?: string): number {
  return confidenceFrom(CALIBRATION, ruleId, origin);
}
