/**
 * Telling the other nodes (across nodes only: the cluster adapter's serverSideEmit): a membership
 * change, a revoked share link, a hidden position — whatever this node just did to its own sockets,
 * the others do to theirs. `tell` waits until every other node confirmed, or the adapter's request
 * timeout (5 s) passed (a node that did not answer still has its periodic re-check,
 * server/realtime/socket.ts).
 * In one process both are no-ops.
 */
import type { Logger } from "../logger.ts";
import type { ArgusSocketServer, InterServerEvents } from "./types.ts";

type Info<E extends keyof InterServerEvents> = Parameters<InterServerEvents[E]>[0];

export const INTER_SERVER_EVENTS = [
  "membership",
  "shareRevoked",
  "hidePosition",
] as const satisfies readonly (keyof InterServerEvents)[];

export function otherNodes(io: ArgusSocketServer, enabled: boolean, log: Logger) {
  return {
    async tell<E extends keyof InterServerEvents>(event: E, info: Info<E>): Promise<void> {
      if (!enabled) return;
      try {
        await (io.serverSideEmitWithAck as (e: string, i: unknown) => Promise<unknown>).call(io, event, info);
      } catch (err) {
        log.warn(
          { err: (err as Error).message, event },
          "not every node confirmed in time; their periodic re-check follows",
        );
      }
    },
    on<E extends keyof InterServerEvents>(event: E, handler: (info: Info<E>) => unknown): void {
      if (!enabled) return;
      (io.on as (e: string, l: (info: Info<E>, ack: () => void) => void) => void)(event, (info, ack) => {
        Promise.resolve()
          .then(() => handler(info))
          .catch((err: unknown) => log.error({ err, event }, "acting on another node's message failed"))
          .finally(() => ack());
      });
    },
  };
}
