/**
 * The cross-file step of the taint pass, after every file is analysed and imports are resolvable:
 * a call into another file's exported function with untrusted arguments is matched against that
 * function's summary (which parameters reach which sinks, cleaned of what), and each match becomes
 * a finding at the sink in the other file whose trace starts in the caller. One hop: a summary is
 * of the callee's own body (with the file's other functions followed), not of further imports.
 */
import type { Finding } from "../types.ts";
import { calibratedConfidence, formatTrace, flowCounts, ORIGIN_WORDS, severityFor, WEAKNESSES } from "./report.ts";
import { revive, type FileTaint } from "./index.ts";
import type { TraceStep } from "../types.ts";

export interface LinkInput {
  path: string;
  taint: FileTaint;
}

/** Resolves an import specifier written in `from` to a snapshot file (or null). */
export type Resolve = (specifier: string, name: string, from: string) => string | null;

export function linkTaint(files: LinkInput[], resolve: Resolve): Finding[] {
  const byPath = new Map(files.map((f) => [f.path, f.taint]));
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    for (const call of file.taint.calls) {
      const target = resolve(call.specifier, call.name, file.path);
      if (!target || target === file.path) continue;
      const summary = byPath
        .get(target)
        ?.exports.find((s) => s.name === call.name || (call.name === "default" && s.name));
      if (!summary) continue;
      for (const arg of call.args) {
        for (const sink of summary.sinks as ((typeof summary.sinks)[number] & { cleaned?: string[] })[]) {
          if (sink.param !== arg.index) continue;
          const flow = revive(arg.flow);
          const inner = sink.steps;
          const cleanedInside = new Set([...flow.cleaned, ...(sink.cleaned ?? [])]);
          if (!flowCounts({ ...flow, cleaned: cleanedInside }, sink.weakness)) continue;
          const key = `${target}:${sink.line}:${sink.weakness}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const spec = WEAKNESSES[sink.weakness];
          const trace: TraceStep[] = [
            ...flow.steps.map((s) => ({ file: file.path, line: s.line, label: s.what })),
            { file: file.path, line: call.line, label: `${call.what}` },
            ...inner.map((s) => ({ file: target, line: s.line, label: s.what })),
            { file: target, line: sink.line, label: sink.sink },
          ];
          out.push({
            tool: "argus",
            ruleId: spec.ruleId,
            severity: severityFor(spec.severity, flow.origin),
            confidence: calibratedConfidence(spec.ruleId, flow.origin),
            file: target,
            startLine: sink.line,
            endLine: sink.endLine,
            message: `${ORIGIN_WORDS[flow.origin]} from ${file.path} ${spec.noun} by ${sink.sink} in ${summary.name}(); flow: ${formatTrace(trace, target)}`,
            trace,
          });
        }
      }
    }
  }
  return out;
}
