/**
 * Entry point of a real Argus server process for the suite (API only, no UI build needed): what
 * `argus start` runs, minus Next.js. Configuration comes from the environment like in production.
 */
import { startServer } from "../../../server/main.ts";

const server = await startServer({ ui: false });
const stop = () => void server.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
