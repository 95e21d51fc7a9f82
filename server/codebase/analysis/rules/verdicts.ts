/**
 * How sure a sink finding is, for each way a value reaches it: the tables every language's rules share.
 * A language rule only says which call and which argument matter; the verdict for a kind of sink is
 * decided once here, so the languages cannot drift apart.
 */
import type { Node } from "../../treesitter.ts";
import type { Finding } from "../types.ts";
import type { Call } from "./calls.ts";
import { byFlow, FLOW_WORDS, report, type Hit, type Verdict } from "./engine.ts";
import type { Flow } from "./flow.ts";

export type FlowTable = Partial<Record<Flow, Verdict>>;

/** A path, template or similar opened or compiled from request input: only input counts. */
export const INPUT_REACHES_SINK: FlowTable = { source: ["high", 0.85], tainted: ["high", 0.8] };

/** A program chosen by the request, run without a shell (its arguments cannot inject). */
export const INPUT_CHOOSES_PROGRAM: FlowTable = { source: ["high", 0.8], tainted: ["high", 0.7] };

/** A redirect to a URL from the request: phishing rather than code execution, so medium. */
export const INPUT_REDIRECTS: FlowTable = { source: ["medium", 0.85], tainted: ["medium", 0.8] };

/** Classifies how `value` is reached and reports with the table's verdict for that flow (null: no finding). */
export async function reportFlow(
  hit: Hit,
  ruleId: string,
  value: Node,
  table: FlowTable,
  message: (from: string) => string,
): Promise<Finding | null> {
  const flow = await hit.flow.classify(value);
  return report(hit, ruleId, byFlow(flow, table), message(FLOW_WORDS[flow]));
}

/**
 * Code that a shell or an evaluator runs: request input in it is critical, derived input high
 * (`taintedConfidence`), and a string assembled at run time from other values a medium lead when
 * `assembledCounts` (off where such strings are normal, e.g. timers, or no shell is involved).
 */
export async function codeVerdict(
  hit: Hit,
  code: Node,
  taintedConfidence: number,
  assembledCounts = true,
): Promise<{ flow: Flow; verdict: Verdict }> {
  const flow = await hit.flow.classify(code);
  const built = assembledCounts && flow === "dynamic" && (await hit.flow.isBuiltString(code));
  const verdict = byFlow(flow, {
    source: ["critical", 0.9],
    tainted: ["high", taintedConfidence],
    dynamic: built ? ["medium", 0.5] : null,
  });
  return { flow, verdict };
}

/**
 * Deserializing with a format that can run code or build arbitrary objects: dangerous on any data not
 * written by the program itself, so even a non-constant value of unknown origin is high.
 */
export function deserializationVerdict(flow: Flow, dynamicConfidence: number, constantCounts = true): Verdict {
  return byFlow(flow, {
    source: ["critical", 0.9],
    tainted: ["critical", 0.85],
    dynamic: ["high", dynamicConfidence],
    constant: constantCounts ? ["medium", 0.5] : null,
  });
}

/**
 * Command injection: through a shell the whole script is code (`shellScript`); without one, only the
 * program being chosen by the request is an injection (its arguments cannot inject).
 */
export async function reportCommand(
  hit: Hit,
  call: Call,
  run: { shellScript: Node | null; program: Node | undefined; taintedConfidence: number; noun: "script" | "command" },
): Promise<Finding | null> {
  if (run.shellScript) {
    const { flow, verdict } = await codeVerdict(hit, run.shellScript, run.taintedConfidence);
    return report(
      hit,
      "injection/command",
      verdict,
      `${call.callee}() runs a shell ${run.noun} built from ${FLOW_WORDS[flow]}`,
    );
  }
  if (!run.program) return null;
  return reportFlow(
    hit,
    "injection/command",
    run.program,
    INPUT_CHOOSES_PROGRAM,
    (from) => `${call.callee}() runs a program chosen by ${from}`,
  );
}
