/**
 * Who may run what (issue 15): a pipeline started from the web app may not start processes on the
 * server — `stdio:` MCP servers and UltraRAG's own `.py` servers run arbitrary commands and code —
 * unless the operator allows it (PIPELINES_ALLOW_PROCESSES=true), and then only for a workspace
 * owner. The CLI keeps UltraRAG's behaviour: whoever runs it already runs commands on the machine.
 */
import type { Role } from "../auth/roles.ts";

/** Where a run was started: the command line, or the web app by a signed-in user. */
export type RunOrigin = "cli" | "app";

/** Why this run may not start processes (the sentence its failure shows), or undefined when it may. */
export function processRefusal(origin: RunOrigin, opts: { allowProcesses: boolean; role?: Role }): string | undefined {
  if (origin === "cli") return undefined;
  if (!opts.allowProcesses)
    return "pipelines started from the web app may not start processes. The server's operator can allow it for workspace owners with PIPELINES_ALLOW_PROCESSES=true.";
  if (opts.role !== "owner")
    return "only a workspace owner may run a pipeline that starts processes (PIPELINES_ALLOW_PROCESSES allows it for owners only).";
  return undefined;
}
