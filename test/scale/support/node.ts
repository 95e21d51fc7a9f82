/**
 * One Argus node as its own process, for the multi-process tests: the role comes from ARGUS_ROLE,
 * the rest of the configuration from the environment like `argus start` (no web UI build: API and
 * sockets only). Prints one line `ready <url>` on stdout once it listens; SIGTERM stops it cleanly.
 *
 *   ARGUS_ROLE=worker DATABASE_URL=… REDIS_URL=… PORT=0 node --import tsx test/scale/support/node.ts
 */
import { loadConfig } from "../../../server/config.ts";
import { startServer } from "../../../server/main.ts";
import { ROLES, type Role } from "../../../server/process-role.ts";

const role = (process.env.ARGUS_ROLE ?? "all") as Role;
if (!ROLES.includes(role)) throw new Error(`ARGUS_ROLE must be one of ${ROLES.join(", ")}`);
const server = await startServer({ config: loadConfig(process.env), role, ui: false });
process.stdout.write(`ready ${server.url}\n`);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
