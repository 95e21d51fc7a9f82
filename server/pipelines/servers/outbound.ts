/** The SSRF guard (server/net/outbound.ts) as a step failure: `alias.tool: <parameter> … is refused …`. */
import type { CallContext } from "./contract.ts";
import { ToolError } from "./define.ts";

export async function checkOutbound(
  ctx: Pick<CallContext, "checkUrl">,
  url: string,
  tool: string,
  parameter: string,
): Promise<void> {
  if (!ctx.checkUrl) return;
  try {
    await ctx.checkUrl(url, parameter);
  } catch (err) {
    throw new ToolError(`${tool}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
