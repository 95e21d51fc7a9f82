/**
 * Agent loop overhead per iteration, excluding the model: the scripted LLM server answers instantly
 * with one tool call per turn (an in-memory read_file), and each iteration's overhead is the time from
 * the end of one model stream (stop event received) to the start of the next request — running the
 * tool, validating its arguments, appending the turn and results, the budget check over the growing
 * history, events. The time spent inside the HTTP round trips (SDK + our client + server) is
 * reported next to it as the baseline it excludes. Target (issue 6): p50 ≤ 2 ms.
 *
 * Also the grep figures of the review tools (bench/measure/grep.ts: our grep tool vs
 * `rg` on a 100k-line tree, same run) when that module exists.
 */
import { createBudget } from "../server/llm/index.ts";
import type { LlmClient } from "../server/llm/index.ts";
import { startScriptedServer } from "../server/llm/scripted/server.ts";
import { clientFor } from "../server/llm/test-support.ts";
import { runAgent } from "../server/review/reviewer/run-agent.ts";
import { memoryTools, reportText } from "../server/review/reviewer/test-support.ts";
import { measureGrep } from "./measure/grep.ts";
import { summarize } from "./_stats.ts";

const ITERATIONS = 100;
const RUNS = 3;

/** Wraps a client to time each stream: when it was asked for, and when its stop event arrived. */
function timed(llm: LlmClient, spans: Array<{ start: number; end: number }>): LlmClient {
  return {
    ...llm,
    async *stream(req) {
      const span = { start: performance.now(), end: 0 };
      spans.push(span);
      for await (const ev of llm.stream(req)) {
        if (ev.type === "stop") span.end = performance.now();
        yield ev;
      }
    },
  };
}

async function loopOverhead(provider: "anthropic" | "openai") {
  const file = Array.from({ length: 120 }, (_, i) => `export const value${i} = compute(${i}); // line ${i + 1}`).join(
    "\n",
  );
  const tree = { "src/a.ts": file };
  const server = await startScriptedServer({
    script: [
      { match: "Do not call any more tools", text: reportText([]) },
      {
        toolCalls: [{ name: "read_file", input: { path: "src/a.ts", start_line: 1, end_line: 40 } }],
        usage: { input: 500, output: 20 },
      },
    ],
  });
  const gaps: number[] = [];
  const inside: number[] = [];
  let wall = 0;
  try {
    for (let run = 0; run < RUNS + 1; run++) {
      server.reset();
      const spans: Array<{ start: number; end: number }> = [];
      const events: unknown[] = [];
      const t0 = performance.now();
      const out = await runAgent({
        llm: timed(clientFor(server, provider, { maxRetries: 0 }), spans),
        mode: "review",
        system: "You review code.",
        firstMessage: "Review scope: the whole project.",
        tools: memoryTools(tree),
        maxIterations: ITERATIONS,
        budget: createBudget({ maxTokens: 100_000_000 }),
        critiqueRounds: 0,
        onEvent: (e) => events.push(e),
      });
      const elapsed = performance.now() - t0;
      if (out.stopReason !== "max_iterations" || !out.report)
        throw new Error(`bench run ended with ${out.stopReason}: ${out.error ?? ""}`);
      if (run === 0) continue; // warm-up: JIT, sockets
      wall += elapsed;
      for (let i = 1; i < spans.length; i++) gaps.push(spans[i]!.start - spans[i - 1]!.end);
      for (const s of spans) inside.push(s.end - s.start);
    }
  } finally {
    await server.close();
  }
  const perIteration = summarize(gaps);
  return {
    iterationsPerRun: ITERATIONS,
    runs: RUNS,
    "loop overhead per iteration (stop → next request), ms": perIteration,
    "baseline: one model round trip through the SDK and scripted server, ms": summarize(inside),
    meanWallPerIterationMs: Math.round((wall / (RUNS * (ITERATIONS + 1))) * 1000) / 1000,
    targetP50Ms: 2,
    meetsTarget: perIteration.p50 <= 2,
  };
}

export default async function agentBench() {
  return {
    unit: "ms",
    anthropic: await loopOverhead("anthropic"),
    openai: await loopOverhead("openai"),
    grep: await measureGrep(),
  };
}
