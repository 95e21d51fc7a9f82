/**
 * The Argus process: one HTTP server on one port serving Next.js (the UI), tRPC (/api/trpc),
 * better-auth (/api/auth) and Socket.IO (/socket.io). Start-up applies migrations and seeds first.
 *
 * Its role (`argus start --role`, docs/deploy.md):
 *   all     everything in this process (the default; the only role without REDIS_URL)
 *   web     HTTP, tRPC and Socket.IO; adds jobs to the shared queue but runs none
 *   worker  runs jobs and publishes their events (through Redis to every web node); its port
 *           serves /api/health only
 *
 *   node --import tsx server/main.ts            (what `npm start` runs after building)
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getConfig, type Config } from "./config.ts";
import { createServices, setServices, type Services } from "./context.ts";
import type { Logger } from "./logger.ts";
import { migrate } from "./db/migrate.ts";
import { createRequestHandler, createWorkerRequestHandler } from "./http/handler.ts";
import { registerPageQueries } from "./trpc/page-queries.ts";
import { seedAllWorkspaces } from "./prompts/builtins.ts";
import { attachSocketServer, attachWorkerFanout, type ArgusSocketServer } from "./realtime/socket.ts";
import { roleRefusal, type Role } from "./process-role.ts";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface StartOptions {
  config?: Config;
  /** Serve the Next.js UI (false: API only, used by integration tests). */
  ui?: boolean;
  /** Next.js development mode (hot reload). */
  dev?: boolean;
  /** The logger (default: one built from the config). */
  log?: Logger;
  /** What this process does (default "all"). */
  role?: Role;
}

export interface RunningServer {
  url: string;
  role: Role;
  services: Services;
  io: ArgusSocketServer;
  httpServer: Server;
  close(): Promise<void>;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = opts.config ?? getConfig();
  const role = opts.role ?? "all";
  const refusal = roleRefusal(role, config);
  if (refusal) throw new Error(refusal);
  // Migrate before opening the app's connections: a failed migration leaves nothing open. Several
  // nodes starting together take turns (an advisory lock on PostgreSQL): one applies, the others wait.
  const applied = await migrate(config.db);
  const services = await createServices(config, opts.log);
  const { log } = services;
  if (applied.length) log.info({ applied }, "applied database migrations");
  for (const line of config.deprecations) log.warn(line);
  // In-process jobs die with the process: what the last shutdown cut off is found in the database.
  // A shared queue's jobs outlive any one node (a stopped worker's jobs go to another), so no sweep.
  if (!services.queue.durable) await sweepInterrupted(services);
  if (role !== "web") await services.queue.start();
  const seeded = await seedAllWorkspaces(services.db);
  if (seeded.inserted || seeded.updated) log.info(seeded, "seeded built-in prompts");
  setServices(services);

  let nextHandler:
    ((req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => Promise<void>) | undefined;
  if ((opts.ui ?? true) && role !== "worker") {
    // The pages' server components run their first queries in this process (server/trpc/page-queries.ts).
    registerPageQueries(services);
    const { default: next } = await import("next");
    const app = next({ dev: opts.dev ?? false, dir: repoRoot, hostname: "localhost", port: config.port });
    await app.prepare();
    nextHandler = app.getRequestHandler();
  }

  const httpServer = createServer(
    role === "worker" ? createWorkerRequestHandler(services) : createRequestHandler(services, nextHandler, role),
  );
  const io = role === "worker" ? attachWorkerFanout(httpServer, services) : attachSocketServer(httpServer, services);
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(config.port, config.host, resolve);
  });
  const { port } = httpServer.address() as AddressInfo;
  const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`;
  const jobs = services.queue.kind;
  if (role === "worker")
    log.info({ url, role, db: config.db.provider, jobs }, `Argus worker is running jobs; health at ${url}/api/health`);
  else log.info({ url, role, db: config.db.provider, dataDir: config.dataDir, jobs }, `Argus is listening on ${url}`);
  // Until someone has used it, every start says where the setup link is (server/auth/setup-token.ts).
  if (role !== "worker" && (await services.workspaces.needsSetup()))
    log.warn(services.setup.announcement(config.publicUrl ?? url));

  return {
    url,
    role,
    services,
    io,
    httpServer,
    async close() {
      await io.close(); // also closes the HTTP server
      await services.close();
    },
  };
}

/** The start-up "interrupted" sweep of the in-process queue. */
async function sweepInterrupted(services: Services): Promise<void> {
  const { log } = services;
  const interrupted = await services.snapshots.recoverInterrupted();
  if (interrupted) log.warn({ interrupted }, "marked imports cut off by the last shutdown as failed");
  const knowledge = await services.knowledge.recoverInterrupted();
  if (knowledge) log.warn({ knowledge }, "indexing knowledge bases again that the last shutdown cut off");
  const reviews = await services.reviews.recoverInterrupted();
  if (reviews.failed || reviews.requeued)
    log.warn(reviews, "reviews cut off by the last shutdown: running ones failed, queued ones queued again");
  const answers = await services.ask.recoverInterrupted();
  if (answers) log.warn({ answers }, "answers cut off by the last shutdown were marked failed");
  const runs = await services.pipelines.recoverInterrupted();
  if (runs) log.warn({ runs }, "marked pipeline runs cut off by the last shutdown as failed");
}

function isEntryPoint(): boolean {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) {
  const server = await startServer({ dev: getConfig().env === "development" });
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
