/** Token usage of model requests: what the LLM layer reports and review events carry to the page. */
import { z } from "zod";

export const usageSchema = z.object({
  /** All prompt tokens, cached ones included (Anthropic's three figures are summed). */
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;
