/**
 * The static engine: the embedded default that needs no LLM. It turns the snapshot's static pre-pass
 * (Argus's own rules, ESLint with the security config, ruff, bandit and ShellCheck when installed) into the same
 * report the agent writes, so a new user with no API key still gets a real review. Findings go
 * through the same checks as the agent's (location, fingerprint, dismissals, thresholds).
 */
import { adviceFor, type StaticInput } from "../agent/index.ts";
import { severitySchema } from "./report/schema.ts";
import type { ProposedFinding } from "./report/build.ts";

export const STATIC_ENGINE_LABEL = "static analysis — no LLM";

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
