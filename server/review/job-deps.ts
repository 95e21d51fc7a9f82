/** What the review job is made with (job.ts), shared by its run (job-run.ts) and its ending (job-outcome.ts). */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { Logger } from "../logger.ts";
import type { Notifier } from "../notifications/service.ts";
import type { ProviderService } from "../providers/service.ts";
import type { IndexCache } from "../retrieval/store/index.ts";
import type { Steering } from "./steering.ts";

export interface ReviewJobDeps {
  db: Db;
  config: Config;
  events: EventBus;
  log: Logger;
  providers: ProviderService;
  /** The service's map of running reviews' cancel switches. */
  running: Map<string, AbortController>;
  /** Open search indexes shared with the search boxes. */
  searchIndexes: IndexCache;
  steering: Steering;
  /**
   * The job was taken over from a worker that stopped (a shared queue): the service's policy decides
   * whether it runs again (true) or has ended (false, the review says why).
   */
  takeOver?: (reviewId: string) => Promise<boolean>;
  /**
   * Look at the review's row before each model turn and stop when it is no longer running (a cancel
   * recorded by another node whose signal did not arrive). Only needed with a shared queue.
   */
  watchStatus?: boolean;
  /** Tells the review's starter when it finished or failed. */
  notify: Pick<Notifier, "reviewEnded">;
}
