/** bench/ask.ts's baseline: the scripted model's own round trip through Argus's LLM client, for the same kind of reply. */
import { createLlmClient, type LlmClientOptions, userText } from "../server/llm/index.ts";
import { cpuMs } from "./_ask-model-probe.ts";
import { summarize } from "./_stats.ts";

/** `samples` round trips after `warmUp` unmeasured ones: request → end of stream, request → first text, CPU time. */
export async function llmRoundTrips(baseURL: string, model: string, warmUp: number, samples: number) {
  const options: LlmClientOptions = { provider: "anthropic", model, baseURL, apiKey: "sk-bench" };
  const client = createLlmClient(options);
  const roundTrip: number[] = [];
  const roundTripCpu: number[] = [];
  const toFirstText: number[] = [];
  for (let i = 0; i < warmUp + samples; i++) {
    const c0 = cpuMs();
    const t0 = performance.now();
    let first: number | undefined;
    for await (const ev of client.stream({
      system: "You answer questions about code.",
      messages: [userText("Where are passwords hashed?")],
      tools: [],
    })) {
      if (ev.type === "text_delta" && first === undefined) first = performance.now();
    }
    if (i >= warmUp) {
      roundTrip.push(performance.now() - t0);
      roundTripCpu.push(cpuMs() - c0);
      toFirstText.push(first! - t0);
    }
  }
  return {
    "baseline: the scripted model's round trip through the LLM client (request → end of stream), ms":
      summarize(roundTrip),
    "baseline: the scripted model's request → first text through the LLM client, ms": summarize(toFirstText),
    "baseline: CPU time of the process during that round trip, ms": summarize(roundTripCpu),
  };
}
