/**
 * An agent review's real progress, folded from its room's events: the model requests used of the
 * budget's iterations and the tool calls run. The job writes it to the review's row (lists and the
 * status pill) and the review page folds the same events live, so both say the same thing.
 */
export interface AgentProgress {
  /** Model turns started (the highest iteration an event named). */
  iterations: number;
  /** Tool calls that came back. */
  toolsRun: number;
}

export const NO_PROGRESS: AgentProgress = { iterations: 0, toolsRun: 0 };

/** The review events this fold reads; any other event leaves the progress as it is. */
type ProgressEvent =
  | { type: "tool_call"; payload: { iteration: number } }
  | { type: "status"; payload: { iteration: number } }
  | { type: "usage"; payload: { requests?: number } }
  | { type: "tool_result" }
  | { type: string };

export function foldProgress(p: AgentProgress, e: ProgressEvent): AgentProgress {
  if (e.type === "tool_result") return { ...p, toolsRun: p.toolsRun + 1 };
  const payload = (e as { payload?: { iteration?: unknown; requests?: unknown } }).payload;
  const n =
    e.type === "tool_call" || e.type === "status"
      ? payload?.iteration
      : e.type === "usage"
        ? payload?.requests
        : undefined;
  return typeof n === "number" && n > p.iterations ? { ...p, iterations: n } : p;
}

/**
 * The share of the work done: the iterations used of the budget's, from 5 % (started) to 95 % at the
 * limit — the report, its checks and the save take the rest. A forced final pass, repairs and the
 * verification can run past the limit; the bar then waits at 95 %.
 */
export function progressFraction(p: AgentProgress, maxIterations: number): number {
  if (maxIterations <= 0) return 0.05;
  return 0.05 + 0.9 * Math.min(1, p.iterations / maxIterations);
}

/** "iteration 3 of 12 · 5 tool calls run" */
export function progressText(p: AgentProgress, maxIterations: number): string {
  const tools = `${p.toolsRun} tool call${p.toolsRun === 1 ? "" : "s"} run`;
  return `iteration ${Math.min(p.iterations, maxIterations)} of ${maxIterations} · ${tools}`;
}
