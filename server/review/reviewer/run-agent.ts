/**
 * The review's entry into the agent loop (server/agent): review mode appends the REPORT contract to
 * the system prompt and asks for it at the end (repairs, forced final pass, self-critique); chat mode
 * runs the loop without a contract. Tested by run-agent.test.ts, which drives the loop end to end.
 */
import { type Contract, type LoopOptions, type LoopOutcome, runLoop } from "../../agent/index.ts";
import { type ModelReport, modelReportSchema } from "../report/schema.ts";
import * as P from "./prompts.ts";

export interface RunAgentOptions extends Omit<LoopOptions<ModelReport>, "contract"> {
  mode: "review" | "chat";
  /** Self-critique rounds in review mode (default 1, at most 5); 0 turns it off. */
  critiqueRounds?: number;
  /** Tool-using turns allowed inside one critique round (default 5). */
  critiqueIterations?: number;
}

export interface AgentOutcome extends Omit<LoopOutcome<ModelReport>, "value"> {
  report?: ModelReport;
}

/** The review / chat loop. Review mode appends the REPORT contract to the system prompt. */
export async function runAgent(opts: RunAgentOptions): Promise<AgentOutcome> {
  const { mode, critiqueRounds = 1, critiqueIterations = 5, ...rest } = opts;
  if (mode === "chat") {
    const { value: _none, ...out } = await runLoop<ModelReport>(rest);
    return out;
  }
  const rounds = Math.max(0, Math.min(5, critiqueRounds));
  const { value, ...out } = await runLoop<ModelReport>({
    ...rest,
    system: `${rest.system.trim()}\n${P.REPORT_CONTRACT}`,
    contract: reportContract(rounds, critiqueIterations),
  });
  return { ...out, ...(value ? { report: value } : {}) };
}

export function reportContract(rounds: number, critiqueIterations: number): Contract<ModelReport> {
  return {
    tag: P.REPORT_TAG,
    schema: modelReportSchema,
    repairMessage: P.repairMessage,
    forcedMessage: P.forcedFinalMessage,
    maxTokensNudge: P.MAX_TOKENS_NUDGE,
    ...(rounds > 0 ? { critique: { rounds, maxIterations: critiqueIterations, message: P.critiqueMessage } } : {}),
  };
}
