/**
 * `npm run llm:smoke`: one live request to the configured provider (LLM_PROVIDER, LLM_MODEL and its
 * key / base URL from the environment), to check credentials and connectivity. Not run in CI.
 */
import { getConfig } from "../server/config.ts";
import { createLlmClientFromSettings, userText } from "../server/llm/index.ts";

const config = getConfig();
const llm = createLlmClientFromSettings(config.llm);
console.log(`Asking ${llm.provider} (${llm.model})…`);
const started = Date.now();
try {
  const answer = await llm.complete({
    messages: [userText("In one short sentence: what is a code review?")],
    maxTokens: 200,
  });
  console.log(`\n${answer.text.trim()}\n`);
  const cost = answer.costUsd === undefined ? "" : `, ~$${answer.costUsd.toFixed(5)}`;
  console.log(
    `OK in ${Date.now() - started} ms — ${answer.usage.inputTokens} input / ${answer.usage.outputTokens} output tokens${cost}.`,
  );
} catch (err) {
  console.error(`llm:smoke failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
