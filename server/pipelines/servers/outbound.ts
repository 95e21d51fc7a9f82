/** The SSRF guard (server/net/outbound.ts) as a step failure: `alias.tool: <parameter> … is refused …`. */
import type { CallContext } from "./contract.ts";
import { ToolError } from "./define.ts";

export async function checkOutbound(
  ctx: Pick<CallContext, "outbound">,
  url: string,
  tool: string,
  parameter: string,
): Promise<void> {
  if (!ctx.outbound) return;
  try {
    await ctx.outbound.check(url, parameter);
  } catch (err) {
    throw new ToolError(`${tool}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The fetch a server's requests go through: the run's outbound policy (every hop checked) in the web app. */
export const fetchFor = (ctx: Pick<CallContext, "outbound">): typeof fetch => ctx.outbound?.fetch ?? fetch;
